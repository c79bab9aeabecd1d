package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code needle compact}'s command line: what it says when it cannot run. */
class CompactCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = CompactCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void call_besideAServer_isRefusedSayingTheServerCompacts() throws IOException {
        Path data = dir.toAbsolutePath().normalize();
        try (DataDirectoryLock held = DataDirectoryLock.acquire(data, "or give this server another --data")) {
            assertEquals(1, run("--data", data.toString()));
        }
        assertEquals("needle compact: " + data + " is in use by another needle process (pid "
                + ProcessHandle.current().pid() + " holds " + data.resolve(DataDirectoryLock.FILE) + "); stop it first,"
                + " or leave the compacting to it: a server compacts by itself (--compact-every)", err.toString().strip());
        assertEquals("", out.toString());
    }

    @Test
    void call_withAnUnknownOption_saysItInOneLine() {
        assertEquals(CommandLine.ExitCode.USAGE, run("--rows", "5"));
        assertEquals("needle compact: Unknown options: '--rows', '5'" + System.lineSeparator()
                + "see `needle compact --help`", err.toString().strip());
    }
}
