package dev.needle.sidecar.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code needle inspect sidecar} on the golden files and on damaged copies of them. */
class InspectSidecarCommandTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new InspectSidecarCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void sidecar_goldenTraceIdx_showsHeaderFillAndVerdicts() {
        // The first id is in the golden keys; the second is not, and this filter rules it out.
        assertEquals(0, run(GOLDEN.resolve("trace_idx_1000").toString(), "--json",
                "--probe", "4BF92F3577B34DA6A3CE929D0E0E4736", "--probe", readFirstKey()));
        String json = out.toString();
        assertTrue(json.contains("\"words\":256"), json);
        assertTrue(json.contains("\"verdict\":\"verified\""), json);
        assertTrue(json.contains("\"implied_keys\":10"), json);
        assertTrue(json.contains("\"verdict\":\"absent\""), json);
        assertTrue(json.contains("\"verdict\":\"maybe\""), json);
    }

    @Test
    void sidecar_attrProbes_typedLikeQueryLiterals() {
        assertEquals(0, run(GOLDEN.resolve("attr_idx_all_types").toString(),
                "--probe-attr", "http.response.status_code=200.0", "--probe-attr", "user.name=\"Zoë Ωmega 日本語 🚀\"",
                "--probe-attr", "error=true"));
        String text = out.toString();
        assertTrue(text.contains("http.response.status_code=200.0 (type n)"), text);
        assertEquals(3, text.split("verdict +maybe", -1).length - 1, text);
    }

    @Test
    void sidecar_batches_listTheBatchesABatchAttrIdxSaysMayHoldEachPair() {
        assertEquals(0, run(GOLDEN.resolve("batch_attr_idx_5_batches").toString(), "--json", "--batches", "40",
                "--probe-attr", "span.user.id=\"user-17\"", "--probe-attr", "resource.service.name=\"cart\""));
        String json = out.toString();
        assertTrue(json.contains("\"batches\":\"[0, 36]\""), json);
        assertTrue(json.contains("\"batches\":\"[2]\""), json);
    }

    @Test
    void sidecar_batchesWithoutAttrProbes_exitsTwo() {
        assertEquals(2, run(GOLDEN.resolve("batch_attr_idx_5_batches").toString(), "--batches", "3"));
        assertTrue(err.toString().contains("--batches needs"), err.toString());
    }

    @Test
    void sidecar_truncatedFile_reportsFailOpenReason() throws IOException {
        Path cut = tmp.resolve("TRACE_IDX");
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(GOLDEN.resolve("trace_idx_1000")), 100));
        assertEquals(0, run(cut.toString(), "--probe", "00000000000000000000000000000001"));
        assertTrue(out.toString().contains("failed open: length"), out.toString());
        assertTrue(out.toString().contains("maybe (failed open: length)"), out.toString());
    }

    @Test
    void sidecar_badLiteral_exitsTwoNamingIt() {
        assertEquals(2, run(GOLDEN.resolve("attr_idx_all_types").toString(), "--probe-attr", "a=b"));
        assertTrue(err.toString().contains("cannot read literal 'b'"), err.toString());
    }

    @Test
    void sidecar_shortProbe_isPaddedAsQueryTracePadsIt() {
        assertEquals(0, run(GOLDEN.resolve("trace_idx_1000").toString(), "--probe", "A3CE929D0E0E4736"));
        assertTrue(out.toString().contains("probe                trace_id 0000000000000000a3ce929d0e0e4736"),
                out.toString());
    }

    @Test
    void sidecar_badProbe_exitsTwoNamingTheForm() {
        assertEquals(2, run(GOLDEN.resolve("trace_idx_1000").toString(), "--probe", "4bf9-2f35"));
        assertTrue(err.toString().contains("--probe needs a trace id of 1 to 32 hex digits, got '4bf9-2f35'"),
                err.toString());
    }

    @Test
    void version_isTheProjectVersion() {
        assertEquals(0, run("--version"));
        assertEquals("needle " + NeedleVersion.version(), out.toString().strip());
        assertTrue(NeedleVersion.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), NeedleVersion.version());
    }

    @Test
    void sidecar_missingFile_exitsOne() {
        assertEquals(1, run(tmp.resolve("nope").toString()));
        assertTrue(err.toString().contains("no such file"), err.toString());
    }

    private static String readFirstKey() {
        try {
            return Files.readAllLines(GOLDEN.resolve("trace_idx_1000.keys")).get(0);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
