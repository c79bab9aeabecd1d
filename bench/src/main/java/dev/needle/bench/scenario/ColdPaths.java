package dev.needle.bench.scenario;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.needle.bench.server.JavaLaunch;
import dev.needle.bench.server.Launcher;
import dev.needle.bench.server.QueryClient;
import dev.needle.bench.server.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The cold paths a user meets, each in fresh processes as a user starts them (the OS page cache is
 * not dropped): {@code needle serve} on the corpus from its start until {@code /ready} answers and
 * then its first trace by id; and {@code needle query trace ID --data DIR}, the whole process.
 */
final class ColdPaths {

    private static final long CLI_TIMEOUT_MINUTES = 10;

    /**
     * One fresh server.
     *
     * @param startToReadyMillis from starting the process to the first 200 from {@code /ready}
     * @param firstQueryMillis   its first {@code /api/v2/traces/{id}}, request to the reply's last byte
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record ServerStart(double startToReadyMillis, double firstQueryMillis) {
    }

    /**
     * What the cold runs measured.
     *
     * @param serverLaunch  how the server was started
     * @param cliLaunch     how the query command was started
     * @param traceId       the trace every run looked up
     * @param starts        each fresh server
     * @param cliWallMillis each query process's wall time, start to exit
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Result(String serverLaunch, String cliLaunch, String traceId, List<ServerStart> starts,
                  List<Double> cliWallMillis) {

        Spread startToReady() {
            return Spread.of(starts.stream().map(ServerStart::startToReadyMillis).toList());
        }

        Spread firstQuery() {
            return Spread.of(starts.stream().map(ServerStart::firstQueryMillis).toList());
        }

        Spread cli() {
            return Spread.of(cliWallMillis);
        }
    }

    private ColdPaths() {
    }

    /**
     * {@code runs} fresh servers, started by {@code server} on {@code data}, and {@code runs} query
     * processes started by {@code cli}, each looking up {@code trace}, which must be found whole.
     */
    static Result run(JavaLaunch server, Launcher cli, Path data, ManifestProbes.Probe trace, int runs,
                      Consumer<String> progress) throws IOException, InterruptedException {
        String hex = trace.scenario().traceId().hex();
        List<ServerStart> starts = new ArrayList<>();
        Path log = Files.createTempFile("needle-bench-serve", ".log");
        try {
            for (int i = 0; i < runs; i++) {
                progress.accept("cold: needle serve, start " + (i + 1) + " of " + runs);
                try (ServerProcess process = ServerProcess.start(server, List.of(), data, log)) {
                    QueryClient client = new QueryClient(process.query());
                    QueryClient.Reply first = client.get("/api/v2/traces/" + hex);
                    int spans = first.status() == 200 ? ServedLookups.spans(first) : -1;
                    if (spans != trace.expectedRecords()) {
                        throw new ScenarioRunner.WrongAnswerException("the first query of a fresh server for trace " + hex
                                + " answered status " + first.status() + " with " + spans + " spans; the manifest says "
                                + trace.expectedRecords());
                    }
                    starts.add(new ServerStart(process.startToReadyNanos() / 1e6, first.elapsedNanos() / 1e6));
                    process.stop();
                }
            }
        } finally {
            Files.deleteIfExists(log);
        }
        List<Double> cliWall = new ArrayList<>();
        Path output = Files.createTempFile("needle-bench-query", ".out");
        try {
            // Untimed: the needle script makes its class-data sharing archive on a command's first run after a build.
            queryProcess(cli, data, hex, output);
            for (int i = 0; i < runs; i++) {
                progress.accept("cold: needle query trace, process " + (i + 1) + " of " + runs);
                cliWall.add(queryProcess(cli, data, hex, output));
            }
        } finally {
            Files.deleteIfExists(output);
        }
        return new Result(server.describe(), cli.describe(), hex, starts, cliWall);
    }

    /** One {@code needle query trace HEX --data DATA} process: its wall time in milliseconds; it must exit 0 (found, complete). */
    private static double queryProcess(Launcher cli, Path data, String hex, Path output)
            throws IOException, InterruptedException {
        List<String> command = cli.command(List.of("trace", hex, "--data", data.toString()));
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            if (!process.waitFor(CLI_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                throw new IOException("needle query trace " + hex + " did not exit within " + CLI_TIMEOUT_MINUTES + " minutes");
            }
            double wall = (System.nanoTime() - start) / 1e6;
            if (process.exitValue() != 0) {
                throw new IOException("needle query trace " + hex + " exited with status " + process.exitValue() + ": "
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
            return wall;
        } finally {
            process.destroyForcibly();
        }
    }
}
