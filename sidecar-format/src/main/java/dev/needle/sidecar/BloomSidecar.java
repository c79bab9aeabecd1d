package dev.needle.sidecar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The Bloom sidecar file format, shared by TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX. Little-endian.
 *
 * <table>
 *   <caption>One file = 16-byte header + bitset</caption>
 *   <tr><th>offset</th><th>size</th><th>field</th></tr>
 *   <tr><td>0</td><td>4</td><td>magic, ASCII {@code NBLM}</td></tr>
 *   <tr><td>4</td><td>1</td><td>version ({@value #VERSION_1})</td></tr>
 *   <tr><td>5</td><td>1</td><td>k, the number of probes ({@value #K} when written; 1..{@value #MAX_K} read)</td></tr>
 *   <tr><td>6</td><td>1</td><td>flags; bit 0 = HAS_DOUBLE (ATTR_IDX and BATCH_ATTR_IDX only); other bits 0</td></tr>
 *   <tr><td>7</td><td>1</td><td>pad (0)</td></tr>
 *   <tr><td>8</td><td>4</td><td>words: the number of 64-bit words in the bitset, a power of two
 *       (at most {@value #MAX_WORDS})</td></tr>
 *   <tr><td>12</td><td>4</td><td>CRC-32C over header bytes 0..12 followed by the whole bitset</td></tr>
 *   <tr><td>16</td><td>8·words</td><td>the bitset: bit b is bit (b &amp; 63) of word b &gt;&gt; 6</td></tr>
 * </table>
 *
 * <p>Writing: {@link TraceIdxBuilder}, {@link AttrIdxBuilder}, {@link BatchAttrIdxBuilder}. Reading never throws for bad bytes:
 * anything that cannot be verified gives a {@link Sidecar} that fails open with its
 * {@link FailOpenReason}, and no buffer is allocated from a length field before it is checked.
 */
public final class BloomSidecar {

    /** File name of the sidecar over a block's trace ids. */
    public static final String TRACE_IDX = "TRACE_IDX";
    /** File name of the sidecar over a block's attribute pairs. */
    public static final String ATTR_IDX = "ATTR_IDX";
    /** File name of the sidecar over a block's (attribute pair, record batch) keys. */
    public static final String BATCH_ATTR_IDX = "BATCH_ATTR_IDX";

    /** ASCII {@code NBLM} read as a little-endian u32. */
    public static final int MAGIC = 'N' | 'B' << 8 | 'L' << 16 | 'M' << 24;
    /** The first and so far only version. */
    public static final int VERSION_1 = 1;
    /** The version this code writes. */
    public static final int VERSION_CURRENT = VERSION_1;
    /** Probes per key when written. */
    public static final int K = 7;
    /** The largest probe count a reader accepts. */
    public static final int MAX_K = 16;
    /** Bits per distinct key before rounding up to a power of two. */
    public static final int BITS_PER_KEY = 10;
    /** Above this many distinct keys no file is written and readers scan. */
    public static final int MAX_KEYS = 1_000_000;
    /** The largest bitset the format allows: MAX_KEYS · BITS_PER_KEY rounded up, in words (2 MiB). */
    public static final int MAX_WORDS = 1 << 18;
    /** Flag bit 0: the block holds at least one double-valued attribute. */
    public static final int FLAG_HAS_DOUBLE = 1;
    /** Every flag bit version 1 defines. */
    public static final int KNOWN_FLAGS = FLAG_HAS_DOUBLE;
    /** Header length in bytes. */
    public static final int HEADER_BYTES = 16;

    private BloomSidecar() {
    }

    /** The whole file for a filled bitset and flags. */
    public static byte[] encode(BloomBits bits, int flags) {
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown flag bits: 0x" + Integer.toHexString(flags));
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + 8 * bits.words()).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC).put((byte) VERSION_CURRENT).put((byte) bits.k()).put((byte) flags).put((byte) 0);
        out.putInt(bits.words()).putInt(0);
        for (int i = 0; i < bits.words(); i++) {
            out.putLong(bits.word(i));
        }
        byte[] file = out.array();
        putIntLE(file, 12, crc(file));
        return file;
    }

    /** Decodes a whole file held in memory. Never throws. */
    public static Sidecar decode(byte[] file) {
        Header header = Header.parse(file);
        if (header == null) {
            return Sidecar.failedOpen(FailOpenReason.SHORT,
                    "file has " + file.length + " bytes, the header alone needs " + HEADER_BYTES, file.length);
        }
        Sidecar rejected = header.check(file.length);
        if (rejected != null) {
            return rejected;
        }
        int computed = crc(file);
        if (computed != header.crc()) {
            return Sidecar.failedOpen(FailOpenReason.CRC, String.format(
                    "checksum failed: stored=0x%08x computed=0x%08x", header.crc(), computed), file.length);
        }
        long[] words = new long[header.words()];
        ByteBuffer.wrap(file, HEADER_BYTES, file.length - HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .asLongBuffer().get(words);
        return Sidecar.verified(new BloomBits(words, header.k()), header.flags(), file.length);
    }

    /**
     * Reads and verifies a sidecar file. Never throws: a missing file, a bad one and an I/O error
     * all give a sidecar that fails open.
     */
    public static Sidecar read(Path path) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return read(channel, path.toString());
        } catch (NoSuchFileException e) {
            return Sidecar.failedOpen(FailOpenReason.MISSING, "no file " + path, 0);
        } catch (IOException | RuntimeException e) {
            return Sidecar.failedOpen(FailOpenReason.IO, "cannot read " + path + ": " + e, 0);
        }
    }

    /**
     * Reads and verifies a sidecar from an open channel, from position 0; {@code name} says which in
     * messages. Never throws. The header is checked before the bitset is read, so a huge or lying
     * file costs 16 bytes.
     */
    public static Sidecar read(SeekableByteChannel channel, String name) {
        try {
            long size = channel.size();
            ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, HEADER_BYTES));
            readFully(channel, head);
            Header header = Header.parse(head.array());
            if (header == null) {
                return decode(head.array());
            }
            Sidecar rejected = header.check(size);
            if (rejected != null) {
                return rejected;
            }
            ByteBuffer whole = ByteBuffer.allocate((int) size);
            whole.put(head.flip());
            readFully(channel, whole);
            return decode(whole.array());
        } catch (IOException | RuntimeException e) {
            return Sidecar.failedOpen(FailOpenReason.IO, "cannot read " + name + ": " + e, 0);
        }
    }

    /** CRC-32C over header bytes 0..12 followed by the bitset. */
    static int crc(byte[] file) {
        CRC32C crc = new CRC32C();
        crc.update(file, 0, 12);
        crc.update(file, HEADER_BYTES, file.length - HEADER_BYTES);
        return (int) crc.getValue();
    }

    private static void readFully(SeekableByteChannel channel, ByteBuffer buffer) throws IOException {
        channel.position(buffer.position());
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("file shrank while being read");
            }
        }
    }

    private static void putIntLE(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    /**
     * The raw header fields, as stored, before any of them is trusted.
     *
     * @param magic  bytes 0..4 as a little-endian u32
     * @param version byte 4
     * @param k      byte 5
     * @param flags  byte 6
     * @param pad    byte 7
     * @param wordsField bytes 8..12 as an unsigned little-endian u32
     * @param crc    bytes 12..16
     */
    public record Header(int magic, int version, int k, int flags, int pad, long wordsField, int crc) {

        /** The header of {@code file}, or null when it has fewer than 16 bytes. */
        public static Header parse(byte[] file) {
            if (file.length < HEADER_BYTES) {
                return null;
            }
            ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
            return new Header(b.getInt(0), file[4] & 0xFF, file[5] & 0xFF, file[6] & 0xFF, file[7] & 0xFF,
                    b.getInt(8) & 0xFFFF_FFFFL, b.getInt(12));
        }

        /** The word count, valid once {@link #check} passed. */
        public int words() {
            return (int) wordsField;
        }

        /** The file length these fields require: 16 + 8 · words. */
        public long expectedLength() {
            return HEADER_BYTES + 8 * wordsField;
        }

        /** Null when every field and the file length are valid, otherwise the fail-open answer. */
        Sidecar check(long fileLength) {
            FailOpenReason reason = null;
            String detail = null;
            if (magic != MAGIC) {
                reason = FailOpenReason.MAGIC;
                detail = String.format("magic is 0x%08x, expected 0x%08x (NBLM)", magic, MAGIC);
            } else if (version != VERSION_1) {
                reason = FailOpenReason.VERSION;
                detail = "version " + version + " is unknown, this reader knows " + VERSION_1;
            } else if (k < 1 || k > MAX_K) {
                reason = FailOpenReason.K;
                detail = "k is " + k + ", expected 1.." + MAX_K;
            } else if ((flags & ~KNOWN_FLAGS) != 0) {
                reason = FailOpenReason.FLAGS;
                detail = String.format("unknown flag bits 0x%02x", flags & ~KNOWN_FLAGS);
            } else if (wordsField == 0 || Long.bitCount(wordsField) != 1 || wordsField > MAX_WORDS) {
                reason = FailOpenReason.WORDS;
                detail = "words is " + wordsField + ", expected a power of two in 1.." + MAX_WORDS;
            } else if (fileLength != expectedLength()) {
                reason = FailOpenReason.LENGTH;
                detail = "file has " + fileLength + " bytes, header says " + expectedLength();
            }
            return reason == null ? null : Sidecar.failedOpen(reason, detail, HEADER_BYTES);
        }
    }
}
