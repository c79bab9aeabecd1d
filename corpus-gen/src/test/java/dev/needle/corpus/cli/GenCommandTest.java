package dev.needle.corpus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.corpus.Manifest;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code needle gen} end to end: its outputs, its manifest, and its refusals. */
class GenCommandTest {

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = GenCommand.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void otlpJsonFiles_parseBackToTheCorpus() throws Exception {
        Run run = run("--spans", "3000", "--logs", "1000", "--format", "otlp-json", "--batch", "1000", "--out", dir.toString(), "--json");
        assertEquals(0, run.exit, run.err);
        long spans = 0;
        try (Stream<Path> files = Files.list(dir.resolve("traces"))) {
            for (Path file : files.sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    spans += OtlpJson.decodeSpans(in).records().size();
                }
            }
        }
        assertEquals(3000, spans);
        assertEquals(3000, Manifest.readFrom(dir).counts().spans());
    }

    @Test
    void badArguments_exitTwoNamingTheProblem() {
        assertRefused("unknown trace-id family 'uuid'", "--spans", "10", "--families", "uuid", "--out", dir.toString());
        assertRefused("give --window or --rate, not both", "--spans", "10", "--window", "1h", "--rate", "5", "--out", dir.toString());
        assertRefused("--format must be blocks, otlp-proto or otlp-json", "--spans", "10", "--format", "parquet", "--out", dir.toString());
        assertRefused("give --out DIR (or --send URL)", "--spans", "10");
        assertRefused("a corpus needs at least one span or log record", "--out", dir.toString());
        assertRefused("a duration is digits and a unit", "--spans", "10", "--window", "soon", "--out", dir.toString());
        assertRefused("--dry-run goes with --send", "--spans", "10", "--dry-run", "--out", dir.toString());
    }

    @Test
    void outIsAFile_exitsOneWithOneLineSayingSo() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "not a directory");
        Run run = run("--spans", "10", "--out", file.toString());
        assertEquals(1, run.exit, run.err);
        assertEquals("needle gen: " + file.toAbsolutePath() + " is a file, not a directory", run.err.strip());

        Run below = run("--spans", "10", "--format", "otlp-json", "--out", file.resolve("corpus").toString());
        assertEquals(1, below.exit, below.err);
        assertEquals("needle gen: " + file.resolve("corpus").toAbsolutePath() + " cannot be created: "
                + file.toAbsolutePath() + " is a file, not a directory", below.err.strip());
    }

    @Test
    void outHoldingEarlierRequestFiles_exitsOneWithOneLine() {
        assertEquals(0, run("--spans", "10", "--format", "otlp-json", "--out", dir.toString(), "--json").exit);
        Run again = run("--spans", "10", "--format", "otlp-json", "--out", dir.toString(), "--json");
        assertEquals(1, again.exit, again.err);
        assertTrue(again.err.startsWith("needle gen: " + dir.resolve("traces") + ": holds 1 request files from an earlier run"),
                again.err);
        assertEquals(1, again.err.lines().count(), again.err);
    }

    @Test
    void durations() {
        assertEquals(90_000_000_000L, GenCommand.duration("90s"));
        assertEquals(5_400_000_000_000L, GenCommand.duration("1h30m"));
        assertEquals(250_000_000L, GenCommand.duration("250ms"));
        assertThrows(IllegalArgumentException.class, () -> GenCommand.duration("1h 30"));
    }

    private void assertRefused(String message, String... args) {
        Run run = run(args);
        assertEquals(2, run.exit, run.err);
        assertTrue(run.err.contains(message), run.err);
    }
}
