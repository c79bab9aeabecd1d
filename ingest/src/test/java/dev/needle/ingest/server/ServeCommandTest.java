package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.cli.Units;
import dev.needle.ingest.IngestLimits;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code needle serve}'s command line: help with the real defaults, and refusals that do not start anything. */
class ServeCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = ServeCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void help_listsEveryOptionWithTheIngestDefaults() {
        assertEquals(0, run("--help"));
        String help = out.toString();
        IngestLimits d = IngestLimits.DEFAULTS;
        for (String expected : new String[] {"--data", "(default: data)", "--otlp-port", "(default: 4318)",
                "--query-port", "(default: 3200)", "--bind", "(default: 127.0.0.1)", "--retention",
                "--block-rows", "(default: " + d.blockRows() + ")", "--cut-rows", "(default: " + d.cutRows() + ")",
                "--cut-bytes", "(default: 128MiB)", "--cut-age", "(default: 2m)", "--max-head-bytes", "(default: 256MiB)",
                "--max-wal-pending-bytes", "--max-request-bytes", "(default: 20MiB)"}) {
            assertTrue(help.contains(expected), () -> "help lacks " + expected + ":\n" + help);
        }
    }

    @Test
    void call_withAHeadBoundTheHeapCannotHold_isAUsageErrorSayingWhatToChange() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--otlp-port", "0", "--query-port", "0",
                "--max-head-bytes", "100GiB"));
        String message = err.toString();
        assertTrue(message.contains("is too small") && message.contains("--max-head-bytes 100GiB")
                && message.contains("NEEDLE_HEAP"), message);
    }

    @Test
    void call_withAnUnknownOption_saysItInOneLineAndWhereTheHelpIs() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--dta", dir.toString()));
        assertEquals("needle serve: Unknown options: '--dta', '" + dir + "'\n"
                + "see `needle serve --help`", err.toString().strip().replace(System.lineSeparator(), "\n"));
        assertEquals("", out.toString());
    }

    @Test
    void call_withABadDuration_isAUsageErrorNamingIt() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--cut-age", "2 minutes"));
        assertTrue(err.toString().contains("expected a duration such as"), err::toString);
    }

    @Test
    void call_withS3OptionsButNoStore_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--s3-endpoint", "http://127.0.0.1:9000"));
        assertTrue(err.toString().contains("go with --store s3://BUCKET/PREFIX"), err::toString);
    }

    @Test
    void call_withAStoreThatIsNotABucket_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--store", "gs://bucket/prefix"));
        assertTrue(err.toString().contains("a store in a bucket is s3://BUCKET[/PREFIX], got 'gs://bucket/prefix'"), err::toString);
    }

    @Test
    void call_queryRoleWithIngestOptions_isAUsageErrorNamingEach() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--role", "query", "--data", dir.toString(), "--cut-rows", "5",
                "--retention", "7d"));
        assertTrue(err.toString().contains("--role query has no use for --cut-rows, --retention"), err::toString);
    }

    @Test
    void call_queryRoleOnABucketWithData_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--role", "query", "--data", dir.toString(), "--store", "s3://b/p"));
        assertTrue(err.toString().contains("--data (a query node on a bucket keeps nothing on disk)"), err::toString);
    }

    @Test
    void call_ingesterWithoutQueryRole_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--ingester", "http://127.0.0.1:3200"));
        assertTrue(err.toString().contains("--role all has no use for --ingester"), err::toString);
    }

    @Test
    void call_unknownCompression_isAUsageErrorNamingIt() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--compression", "lz4"));
        assertTrue(err.toString().contains("expected none or zstd, got 'lz4'"), err::toString);
    }

    @Test
    void call_queryRoleWithCompression_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--role", "query", "--data", dir.toString(), "--compression", "zstd"));
        assertTrue(err.toString().contains("--role query has no use for --compression"), err::toString);
    }

    @Test
    void call_unknownRole_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--role", "writer"));
        assertTrue(err.toString().contains("expected all, ingest or query, got 'writer'"), err::toString);
    }

    @Test
    void call_queryRoleOnAMissingDirectory_failsNamingIt() {
        assertEquals(1, run("--role", "query", "--data", dir.resolve("absent").toString(), "--query-port", "0"));
        assertTrue(err.toString().contains("absent does not exist"), err::toString);
    }

    @Test
    void call_withEqualPorts_isAUsageError() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--data", dir.toString(), "--otlp-port", "5000", "--query-port", "5000"));
        assertTrue(err.toString().contains("must differ"), err::toString);
    }

    @Test
    void call_whenThePortIsTaken_fails1WithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(1, run("--data", dir.toString(), "--otlp-port", String.valueOf(taken.getLocalPort()),
                    "--query-port", "0"));
        }
        assertTrue(err.toString().startsWith("needle serve: cannot listen on 127.0.0.1"), err::toString);
        assertEquals(1, err.toString().strip().lines().count(), err::toString);
    }

    @Test
    void call_withDataOnAFile_fails1WithOneLineSayingSo() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "not a directory");
        assertEquals(1, run("--data", file.toString(), "--otlp-port", "0", "--query-port", "0"));
        assertEquals("needle serve: " + file.toAbsolutePath() + " is a file, not a directory", err.toString().strip());
        assertEquals("", out.toString());
    }

    @Test
    void units_readWhatTheyWrite() {
        assertEquals(Duration.ofMinutes(2), Units.duration("2m"));
        assertEquals(Duration.ofMillis(1500), Units.duration("1500ms"));
        assertEquals(Duration.ofDays(7), Units.duration("7d"));
        assertEquals(256L << 20, Units.bytes("256MiB"));
        assertEquals(1L << 30, Units.bytes("1gib"));
        assertEquals(12345, Units.bytes("12345"));
        assertEquals(10_000_000_000L, Units.bytes("10GB"));
        assertEquals(1_000_000, Units.bytes("1MB"));
        assertEquals(64_000, Units.bytes("64kb"));
        assertEquals(2_000_000_000_000L, Units.bytes("2TB"));
        for (long bytes : new long[] {1, 1000, 1024, 64L << 20, 3L << 40, (1L << 62) + 1}) {
            assertEquals(bytes, Units.bytes(Units.formatBytes(bytes)));
        }
        for (Duration d : new Duration[] {Duration.ofMillis(1), Duration.ofSeconds(90), Duration.ofHours(36),
                Duration.ofDays(30)}) {
            assertEquals(d, Units.duration(Units.formatDuration(d)));
        }
        assertEquals("block", Units.plural(1, "block"));
        assertEquals("blocks", Units.plural(0, "block"));
        assertEquals("blocks", Units.plural(2, "block"));
        assertEquals("entry", Units.plural(1, "entry", "entries"));
        assertEquals("entries", Units.plural(3, "entry", "entries"));
        for (String bad : new String[] {"", "2", "0s", "-1m", "2 m", "1y"}) {
            assertThrows(IllegalArgumentException.class, () -> Units.duration(bad), bad);
        }
        for (String bad : new String[] {"", "0", "0GB", "-5", "99999999999TiB", "9999999TB", "1.5GiB", "1G", "1MiBs"}) {
            assertThrows(IllegalArgumentException.class, () -> Units.bytes(bad), bad);
        }
    }
}
