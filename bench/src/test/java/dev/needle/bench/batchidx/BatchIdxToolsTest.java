package dev.needle.bench.batchidx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import dev.needle.corpus.output.BlockOutput;
import dev.needle.sidecar.BloomSidecar;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sizing and probe-timing tools on a small corpus of two blocks a signal, three batches a block. */
final class BatchIdxToolsTest {

    @TempDir
    static Path dir;
    static Path corpus;

    @BeforeAll
    static void generate() throws Exception {
        corpus = dir.resolve("corpus");
        Corpus c = new Corpus(CorpusSpec.defaults(40_000, 40_000).withBlockRows(20_000).withProbes(5)
                .withCardinality(20, 60, 100_000));
        BlockOutput.Result result = BlockOutput.write(c, corpus, TenantId.DEFAULT, 2, BlockWriter.Options.DEFAULT, n -> { });
        c.manifest(result.spans(), result.logs()).writeTo(corpus);
    }

    @Test
    void compare_everySettingOfBothSignals_noAbsentProbeHeld_andEveryHeldBatchLetThrough() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SidecarSizing.compare(corpus, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> rows = bytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.matches(" +\\d+ .*")).toList();
        assertEquals(2 * SidecarSizing.BITS.length * SidecarSizing.BITS.length, rows.size(), bytes.toString());
        for (String row : rows) {
            String[] f = row.replace("|", " ").trim().split(" +");
            assertEquals("0", f[7], "an absent probe held by a batch: " + row);
            assertTrue(Long.parseLong(f[10]) >= Long.parseLong(f[11]), "a batch holding a present value was ruled out: " + row);
            assertTrue(Long.parseLong(f[9]) >= Long.parseLong(f[10]), row);
        }
    }

    @Test
    void write_withoutBatchAttrIdx_thenTimes_answerTheManifest() throws Exception {
        Path before = dir.resolve("before");
        SidecarSizing.write(corpus, before, 10, 0);
        FsBlockStore original = FsBlockStore.readOnly(corpus);
        FsBlockStore copy = FsBlockStore.readOnly(before);
        for (BlockRef ref : original.list(TenantId.DEFAULT, Signal.SPANS)) {
            assertArrayEquals(Files.readAllBytes(original.blockDir(ref).resolve(BloomSidecar.ATTR_IDX)),
                    Files.readAllBytes(copy.blockDir(ref).resolve(BloomSidecar.ATTR_IDX)), "ATTR_IDX at 10 bits per key as written");
            assertFalse(Files.exists(copy.blockDir(ref).resolve(BloomSidecar.BATCH_ATTR_IDX)));
        }
        for (Path data : List.of(before, corpus)) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            ManifestProbeTimes.run(data, 1, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(out.lines().anyMatch(l -> l.startsWith("spans  absent")), out);
            assertTrue(out.lines().anyMatch(l -> l.startsWith("logs   common")), out);
        }
    }
}
