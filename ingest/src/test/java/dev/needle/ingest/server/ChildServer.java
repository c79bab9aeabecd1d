package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code needle serve} child process on ports chosen by the system, with its stderr in a file. */
final class ChildServer implements AutoCloseable {

    private static final Pattern READY = Pattern.compile("needle: ready otlp=(\\S+):(\\d+) query=(\\S+):(\\d+)");

    private final Process process;
    private final Path log;
    final InetSocketAddress otlp;
    final InetSocketAddress query;

    private ChildServer(Process process, Path log, InetSocketAddress otlp, InetSocketAddress query) {
        this.process = process;
        this.log = log;
        this.otlp = otlp;
        this.query = query;
    }

    /** Starts {@code needle serve --data data} with a heap of {@code heap} (such as {@code 512m}) and {@code args}. */
    static ChildServer start(Path data, Path log, String heap, List<String> args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Surefire runs tests from a manifest-only jar; this property holds the real class path.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1", "-cp", classPath, ServeCommand.class.getName(),
                "--data", data.toString(), "--otlp-port", "0", "--query-port", "0"));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line = CompletableFuture.supplyAsync(() -> readLine(out)).get(60, TimeUnit.SECONDS);
            Matcher m = READY.matcher(line == null ? "" : line);
            assertTrue(m.matches(), () -> "not a ready line: " + line + "\n" + tail(log));
            return new ChildServer(process, log, new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2))),
                    new InetSocketAddress(m.group(3), Integer.parseInt(m.group(4))));
        } catch (TimeoutException | RuntimeException | AssertionError e) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("the child server did not get ready:\n" + tail(log), e);
        }
    }

    private static String readLine(BufferedReader out) {
        try {
            return out.readLine();
        } catch (IOException e) {
            return null;
        }
    }

    /** The last lines the child wrote to its log. */
    String tail() {
        return tail(log);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    long pid() {
        return process.pid();
    }

    /** The child's peak resident set so far, from {@code /proc/<pid>/status} (VmHWM), in bytes; -1 where there is none. */
    long peakRssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** SIGKILL: no shutdown hook, no flush, nothing published. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");
    }

    /** SIGTERM, then its exit status. */
    int stop() throws InterruptedException {
        process.destroy();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), () -> "the child did not stop:\n" + tail(log));
        return process.exitValue();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
