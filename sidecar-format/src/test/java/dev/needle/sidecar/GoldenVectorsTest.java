package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The golden vectors printed in {@code docs/FORMAT.md}: each key's (lo, hi), (h1, h2) and seven
 * probe positions in a 65,536-bit filter. Read from the document itself, so that the document
 * and the code cannot disagree.
 */
class GoldenVectorsTest {

    private static final int BITS = 65_536;
    private static final Path FORMAT_MD = Path.of("../docs/FORMAT.md");

    @Test
    void formatDoc_everyTraceVector_matchesCode() throws IOException {
        List<String> lines = vectorLines("trace ");
        assertTrue(lines.size() >= 8, "expected trace vectors in FORMAT.md");
        for (String line : lines) {
            String[] f = line.split(" ");
            byte[] id = HexFormat.of().parseHex(f[1]);
            long lo = KeyMix.traceIdLo(id, 0);
            long hi = KeyMix.traceIdHi(id, 0);
            check(line, lo, hi, Arrays.copyOfRange(f, 2, f.length));
        }
    }

    @Test
    void formatDoc_everyAttributeVector_matchesCode() throws IOException {
        List<String> lines = vectorLines("attr ");
        assertTrue(lines.size() >= 8, "expected attribute vectors in FORMAT.md");
        for (String line : lines) {
            int split = line.indexOf("} enc=") + 1;
            GoldenKeys.Key key = GoldenKeys.Key.parse(line.substring("attr ".length(), split));
            String[] f = line.substring(split + 1).split(" ");
            byte[] encoding = switch (key.type()) {
                case 's' -> AttributeEncoding.ofString(key.attrKey(), (String) key.value());
                case 'n' -> AttributeEncoding.ofLong(key.attrKey(), ((Number) key.value()).longValue());
                case 'd' -> AttributeEncoding.ofDouble(key.attrKey(), ((Number) key.value()).doubleValue());
                default -> AttributeEncoding.ofBool(key.attrKey(), (Boolean) key.value());
            };
            assertEquals(field(f[0], "enc"), HexFormat.of().formatHex(encoding), line);
            AttributeHash hash = key.attributeHash();
            check(line, hash.lo(), hash.hi(), Arrays.copyOfRange(f, 1, f.length));
        }
    }

    @Test
    void formatDoc_everyBatchVector_matchesCode() throws IOException {
        List<String> lines = vectorLines("batch {");
        assertTrue(lines.size() >= 8, "expected BATCH_ATTR_IDX vectors in FORMAT.md");
        for (String line : lines) {
            int split = line.indexOf("} batch=") + 1;
            GoldenKeys.Key key = GoldenKeys.Key.parse(line.substring("batch ".length(), split));
            String[] f = line.substring(split + 1).split(" ");
            int batch = Integer.parseInt(field(f[0], "batch"));
            AttributeHash pair = key.attributeHash();
            assertEquals(field(f[1], "lo"), hex(pair.lo()), line);
            assertEquals(field(f[2], "hi"), hex(pair.hi()), line);
            long batchLo = KeyMix.batchLo(pair.lo(), batch);
            assertEquals(field(f[3], "batchlo"), hex(batchLo), line);
            check(line, batchLo, pair.hi(), new String[] {"lo=" + hex(batchLo), "hi=" + hex(pair.hi()), f[4], f[5], f[6]});

            BloomBits bits = BloomBits.ofBits(BITS, 7);
            bits.put(KeyMix.h1(batchLo, pair.hi()), KeyMix.h2(batchLo, pair.hi()));
            assertTrue(Sidecar.verified(bits, 0, 0).mayContain(pair, batch), line);
        }
    }

    @Test
    void murmur3_referenceCheckValue_matchesFormatDoc() {
        AttributeHash h = AttributeHash.ofEncoding(
                "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8));
        assertEquals(0xe34bbc7bbc071b6cL, h.lo());
        assertEquals(0x7a433ca9c49a9347L, h.hi());
    }

    private static void check(String line, long lo, long hi, String[] f) {
        long h1 = KeyMix.h1(lo, hi);
        long h2 = KeyMix.h2(lo, hi);
        assertEquals(field(f[0], "lo"), hex(lo), line);
        assertEquals(field(f[1], "hi"), hex(hi), line);
        assertEquals(field(f[2], "h1"), hex(h1), line);
        assertEquals(field(f[3], "h2"), hex(h2), line);
        String probes = String.join(",",
                IntStream.range(0, 7).mapToObj(i -> String.valueOf(BloomBits.probe(h1, h2, i, BITS))).toList());
        assertEquals(field(f[4], "probes"), probes, line);

        BloomBits bits = BloomBits.ofBits(BITS, 7);
        bits.put(h1, h2);
        assertEquals(7, bits.bitCount(), "the seven probes of one key are distinct: " + line);
        for (String p : field(f[4], "probes").split(",")) {
            assertTrue(bits.isSet(Integer.parseInt(p)), line);
        }
    }

    private static String field(String token, String name) {
        assertTrue(token.startsWith(name + "="), "expected " + name + "= but found " + token);
        return token.substring(name.length() + 1);
    }

    private static String hex(long v) {
        return String.format("%016x", v);
    }

    private static List<String> vectorLines(String prefix) throws IOException {
        return Files.readAllLines(FORMAT_MD, StandardCharsets.UTF_8).stream().filter(l -> l.startsWith(prefix)).toList();
    }
}
