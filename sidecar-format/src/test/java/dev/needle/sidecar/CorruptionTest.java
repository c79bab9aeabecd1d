package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Real corruption of the golden files: every truncation, every single-bit flip, every header field
 * set to each bad value. Each gives "maybe" for every probe with the right reason; none throws.
 */
class CorruptionTest {

    static final List<String> NAMES = GoldenKeys.NAMES;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @FieldSource("NAMES")
    void decode_everyTruncation_failsOpenAsShortOrLength(String name) throws IOException {
        byte[] golden = GoldenKeys.file(name);
        Probes probes = new Probes(name);
        for (int length = 0; length < golden.length; length++) {
            byte[] cut = Arrays.copyOf(golden, length);
            FailOpenReason expected = length < BloomSidecar.HEADER_BYTES ? FailOpenReason.SHORT : FailOpenReason.LENGTH;
            probes.assertFailsOpen(BloomSidecar.decode(cut), expected, "truncated to " + length);
            Path file = tmp.resolve("cut");
            Files.write(file, cut);
            probes.assertFailsOpen(BloomSidecar.read(file), expected, "file truncated to " + length);
        }
    }

    @ParameterizedTest
    @FieldSource("NAMES")
    void decode_everySingleBitFlip_failsOpenWithFieldReasonOrCrc(String name) {
        byte[] golden = GoldenKeys.file(name);
        Probes probes = new Probes(name);
        for (int bit = 0; bit < golden.length * 8; bit++) {
            byte[] flipped = golden.clone();
            flipped[bit >>> 3] ^= (byte) (1 << (bit & 7));
            probes.assertFailsOpen(BloomSidecar.decode(flipped), expectedReasonForFlip(golden, flipped, bit >>> 3),
                    "bit " + bit + " flipped");
        }
    }

    /** The first header check a flip at {@code offset} trips; CRC when every field is still valid. */
    private static FailOpenReason expectedReasonForFlip(byte[] golden, byte[] flipped, int offset) {
        BloomSidecar.Header h = BloomSidecar.Header.parse(flipped);
        if (offset < 4) {
            return FailOpenReason.MAGIC;
        } else if (offset == 4) {
            return FailOpenReason.VERSION;
        } else if (offset == 5) {
            return h.k() >= 1 && h.k() <= BloomSidecar.MAX_K ? FailOpenReason.CRC : FailOpenReason.K;
        } else if (offset == 6) {
            return (h.flags() & ~BloomSidecar.KNOWN_FLAGS) != 0 ? FailOpenReason.FLAGS : FailOpenReason.CRC;
        } else if (offset >= 8 && offset < 12) {
            long w = h.wordsField();
            boolean valid = w != 0 && Long.bitCount(w) == 1 && w <= BloomSidecar.MAX_WORDS;
            return valid ? FailOpenReason.LENGTH : FailOpenReason.WORDS;
        }
        return FailOpenReason.CRC;
    }

    @ParameterizedTest
    @FieldSource("NAMES")
    void decode_eachHeaderFieldSetToEachBadValue_failsOpenWithThatReason(String name) {
        byte[] golden = GoldenKeys.file(name);
        Probes probes = new Probes(name);
        for (int magic : new int[] {0, 0x4E4C424D, BloomSidecar.MAGIC ^ 0x80000000, -1}) {
            probes.assertFailsOpen(decodeEdited(golden, b -> b.putInt(0, magic)), FailOpenReason.MAGIC, "magic " + magic);
        }
        for (int version : new int[] {0, 2, 3, 127, 255}) {
            probes.assertFailsOpen(decodeEdited(golden, b -> b.put(4, (byte) version)), FailOpenReason.VERSION, "version " + version);
        }
        for (int k : new int[] {0, 17, 64, 255}) {
            probes.assertFailsOpen(decodeEdited(golden, b -> b.put(5, (byte) k)), FailOpenReason.K, "k " + k);
        }
        for (int flags = 2; flags < 256; flags++) {
            int f = flags;
            probes.assertFailsOpen(decodeEdited(golden, b -> b.put(6, (byte) f)), FailOpenReason.FLAGS, "flags " + f);
        }
        for (long words : new long[] {0, 3, 5, 255, 257, BloomSidecar.MAX_WORDS * 2L, 1L << 31, 0xFFFF_FFFFL}) {
            probes.assertFailsOpen(decodeEdited(golden, b -> b.putInt(8, (int) words)), FailOpenReason.WORDS, "words " + words);
        }
        int words = BloomSidecar.Header.parse(golden).words();
        probes.assertFailsOpen(decodeEdited(golden, b -> b.putInt(8, words * 2)), FailOpenReason.LENGTH, "words doubled");
        byte[] longer = Arrays.copyOf(golden, golden.length + 8);
        probes.assertFailsOpen(BloomSidecar.decode(longer), FailOpenReason.LENGTH, "8 bytes appended");
        byte[] oneMore = Arrays.copyOf(golden, golden.length + 1);
        probes.assertFailsOpen(BloomSidecar.decode(oneMore), FailOpenReason.LENGTH, "1 byte appended");
        byte[] badCrc = golden.clone();
        badCrc[12] ^= 0x55;
        probes.assertFailsOpen(BloomSidecar.decode(badCrc), FailOpenReason.CRC, "crc changed");
    }

    @Test
    void read_hugeFileWithValidHeader_failsOpenAfterReadingOnlyTheHeader() throws IOException {
        Path file = tmp.resolve("huge");
        Files.write(file, GoldenKeys.file("trace_idx_1000"));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(3L << 30);
        }
        Sidecar sidecar = BloomSidecar.read(file);
        assertEquals(FailOpenReason.LENGTH, sidecar.failOpenReason().orElseThrow());
        assertEquals(BloomSidecar.HEADER_BYTES, sidecar.bytesRead());
    }

    @Test
    void read_headerClaimingMaxWords_failsOpenWithoutAllocatingFromIt() throws IOException {
        byte[] liar = withValidCrc(GoldenKeys.file("trace_idx_one_word"), b -> b.putInt(8, 0xFFFF_FFFF));
        Path file = tmp.resolve("liar");
        Files.write(file, liar);
        assertEquals(FailOpenReason.WORDS, BloomSidecar.read(file).failOpenReason().orElseThrow());
    }

    @Test
    void read_missingFile_failsOpenAsMissing() {
        Sidecar sidecar = BloomSidecar.read(tmp.resolve("TRACE_IDX"));
        assertEquals(FailOpenReason.MISSING, sidecar.failOpenReason().orElseThrow());
        assertTrue(sidecar.mayContainTraceId(1, 2));
    }

    @Test
    void read_directoryInsteadOfFile_failsOpenAsIo() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("ATTR_IDX"));
        Sidecar sidecar = BloomSidecar.read(dir);
        assertEquals(FailOpenReason.IO, sidecar.failOpenReason().orElseThrow());
        assertTrue(sidecar.mayContain(AttributeHash.ofString("k", "v")));
        assertTrue(sidecar.mayHoldDoubles());
    }

    @Test
    void read_goldenFile_isVerified() throws IOException {
        Path file = tmp.resolve("TRACE_IDX");
        Files.write(file, GoldenKeys.file("trace_idx_1000"));
        Sidecar sidecar = BloomSidecar.read(file);
        assertTrue(sidecar.isVerified(), sidecar.detail());
        assertEquals(2064, sidecar.bytesRead());
    }

    private static Sidecar decodeEdited(byte[] golden, Consumer<ByteBuffer> edit) {
        return BloomSidecar.decode(withValidCrc(golden, edit));
    }

    private static byte[] withValidCrc(byte[] golden, Consumer<ByteBuffer> edit) {
        byte[] copy = golden.clone();
        edit.accept(ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN));
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(12, BloomSidecar.crc(copy));
        return copy;
    }

    /** The keys of a golden file plus keys certainly not in it: a failed-open sidecar must say "maybe" to all. */
    private static final class Probes {
        private final List<GoldenKeys.Key> present;
        private final long[] absent = new long[200];

        Probes(String name) {
            present = new ArrayList<>(GoldenKeys.keys(name));
            SplittableRandom random = new SplittableRandom(name.hashCode());
            for (int i = 0; i < absent.length; i++) {
                absent[i] = random.nextLong();
            }
            Sidecar good = BloomSidecar.decode(GoldenKeys.file(name));
            int ruledOut = 0;
            for (int i = 0; i < absent.length; i += 2) {
                ruledOut += good.mayContainTraceId(absent[i], absent[i + 1]) ? 0 : 1;
            }
            assertTrue(ruledOut > 0, "the intact file must rule some absent keys out, or the probes prove nothing");
        }

        void assertFailsOpen(Sidecar sidecar, FailOpenReason reason, String what) {
            assertFalse(sidecar.isVerified(), what + " was accepted");
            assertEquals(reason, sidecar.failOpenReason().orElseThrow(), what + ": " + sidecar.detail());
            assertTrue(sidecar.mayHoldDoubles(), what);
            for (GoldenKeys.Key key : present) {
                assertTrue(key.in(sidecar), what);
            }
            for (int i = 0; i < absent.length; i += 2) {
                assertTrue(sidecar.mayContainTraceId(absent[i], absent[i + 1]), what);
                assertTrue(sidecar.mayContain(absent[i], absent[i + 1]), what);
            }
        }
    }
}
