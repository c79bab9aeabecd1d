package dev.needle.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.corpus.output.BlockOutput;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same spec gives the same manifest and the same block bytes, whatever the number of threads. */
class CorpusDeterminismTest {

    private static final CorpusSpec SPEC = CorpusSpec.defaults(30_000, 20_000).withBlockRows(7_000).withProbes(10);

    @Test
    void sameSeedSameManifestAndBlockChecksums(@TempDir Path a, @TempDir Path b) throws Exception {
        byte[] manifestA = write(SPEC, a, 1);
        byte[] manifestB = write(SPEC, b, 3);
        assertEquals(new String(manifestA), new String(manifestB));
        Map<String, String> sumsA = checksums(a);
        assertTrue(sumsA.size() >= 4 * 8, "files: " + sumsA.keySet());
        assertEquals(sumsA, checksums(b));
    }

    @Test
    void anotherSeedAnotherCorpus(@TempDir Path a, @TempDir Path b) throws Exception {
        assertNotEquals(new String(write(SPEC, a, 2)), new String(write(SPEC.withSeed(7), b, 2)));
    }

    private static byte[] write(CorpusSpec spec, Path dir, int threads) throws Exception {
        Corpus corpus = new Corpus(spec);
        BlockOutput.Result result = BlockOutput.write(corpus, dir, TenantId.DEFAULT, threads, BlockWriter.Options.DEFAULT, n -> { });
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        corpus.manifest(result.spans(), result.logs()).write(out);
        return out.toByteArray();
    }

    /** SHA-256 of every file under {@code root}, by path relative to it. */
    private static Map<String, String> checksums(Path root) throws Exception {
        Map<String, String> sums = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
                sums.put(root.relativize(file).toString(), HexFormat.of().formatHex(digest));
            }
        }
        return sums;
    }
}
