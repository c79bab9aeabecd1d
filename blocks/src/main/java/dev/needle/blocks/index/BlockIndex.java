package dev.needle.blocks.index;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The index object of one tenant and signal ({@code <tenant>/<signal>/INDEX}, see
 * {@link dev.needle.blocks.store.BlockStore#readIndex}): every published block with its meta.json, its
 * TRACE_IDX and ATTR_IDX and its data.arrow's footer, verbatim, so that a reader learns the blocks, their
 * time ranges, counts, zone maps, filters and where each record batch lies from one read instead of a
 * listing and a read per block (and then reads a batch it needs without first reading data.arrow's
 * tail). Derived data: a reader that finds it missing, damaged or of another version lists the blocks
 * and reads their files instead (see {@link BlockIndexWriter} for the writers).
 *
 * <p>Little-endian. One object = 16-byte header + body.
 *
 * <table>
 * <caption>Layout (version 2; version 1 is the same without each entry's last field)</caption>
 * <tr><th>offset</th><th>size</th><th>field</th></tr>
 * <tr><td>0</td><td>4</td><td>magic, ASCII {@code NIDX}</td></tr>
 * <tr><td>4</td><td>1</td><td>version ({@link #VERSION_1} or {@link #VERSION_2})</td></tr>
 * <tr><td>5</td><td>1</td><td>signal: 1 = spans, 2 = logs</td></tr>
 * <tr><td>6</td><td>2</td><td>pad (0)</td></tr>
 * <tr><td>8</td><td>4</td><td>body length n, at most {@link #MAX_BODY_BYTES}</td></tr>
 * <tr><td>12</td><td>4</td><td>CRC-32C over header bytes 0..12 followed by the body</td></tr>
 * <tr><td>16</td><td>n</td><td>body: u16 length + the tenant id (ASCII); u32 entry count; per entry, in
 *     ascending order of block name, no name twice: u16 length + the block name (ASCII, a {@link BlockName});
 *     u32 length + meta.json's bytes (0 = not recorded: read the block's own); u32 length + TRACE_IDX's
 *     bytes (0 = no filter: the block may hold any trace); u32 length + ATTR_IDX's bytes (0 = no filter);
 *     version 2 only: u32 length + data.arrow's footer, the file's last bytes from its Arrow footer on
 *     (the footer's flatbuffer, its i32 length and the magic {@code ARROW1}; 0 = not recorded: read
 *     data.arrow's own)</td></tr>
 * </table>
 *
 * <p>The files inside keep their own formats (a sidecar its header and CRC-32C, a meta.json of writer version
 * 4 its {@code metaCrc32c}), so a reader decodes them as it decodes the block's own files and a damaged one
 * fails open alone: a copy of meta.json that fails its checksum sends the reader to the block's own. A new layout (filters
 * bit-sliced across blocks, blocks that replace others) gets a new version; a reader refuses a version
 * it does not know, and its caller lists.
 */
public final class BlockIndex {

    /** The first version. */
    public static final int VERSION_1 = 1;
    /** Version 2: each entry also records data.arrow's footer. */
    public static final int VERSION_2 = 2;
    /** The version writers write. */
    public static final int VERSION_CURRENT = VERSION_2;
    /** The largest body a reader accepts and a writer writes. */
    public static final int MAX_BODY_BYTES = 1 << 30;
    /** Header bytes before the body. */
    public static final int HEADER_BYTES = 16;

    private static final byte[] MAGIC = {'N', 'I', 'D', 'X'};
    /** The smallest entry of version 2: a one-character name and four empty files. */
    private static final int MIN_ENTRY_BYTES = 2 + 1 + 4 * 4;
    /** The smallest entry of version 1: a one-character name and three empty files. */
    private static final int MIN_ENTRY_BYTES_V1 = 2 + 1 + 3 * 4;

    private final TenantId tenant;
    private final Signal signal;
    private final List<Entry> entries;

    /**
     * One block as the index records it. The arrays are the files' bytes, empty when not recorded;
     * they are not copied, and nobody changes them.
     *
     * @param name       the block
     * @param meta       its meta.json, or empty
     * @param traceIdx   its TRACE_IDX, or empty: no filter
     * @param attrIdx    its ATTR_IDX, or empty: no filter
     * @param dataFooter data.arrow's last bytes from its Arrow footer on, or empty
     */
    public record Entry(BlockName name, byte[] meta, byte[] traceIdx, byte[] attrIdx, byte[] dataFooter) {
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(meta, "meta");
            Objects.requireNonNull(traceIdx, "traceIdx");
            Objects.requireNonNull(attrIdx, "attrIdx");
            Objects.requireNonNull(dataFooter, "dataFooter");
        }

        /** An entry that records no footer of data.arrow. */
        public Entry(BlockName name, byte[] meta, byte[] traceIdx, byte[] attrIdx) {
            this(name, meta, traceIdx, attrIdx, new byte[0]);
        }

        /** The bytes this entry takes in the body. */
        long encodedBytes() {
            return MIN_ENTRY_BYTES - 1 + name.toString().length() + meta.length + traceIdx.length + attrIdx.length
                    + dataFooter.length;
        }
    }

    private BlockIndex(TenantId tenant, Signal signal, List<Entry> entries) {
        this.tenant = tenant;
        this.signal = signal;
        this.entries = entries;
    }

    /** An index of {@code entries}; a later entry of a name replaces an earlier one. */
    public static BlockIndex of(TenantId tenant, Signal signal, Collection<Entry> entries) {
        TreeMap<BlockName, Entry> byName = new TreeMap<>();
        entries.forEach(e -> byName.put(e.name(), e));
        return new BlockIndex(tenant, signal, List.copyOf(byName.values()));
    }

    /** The tenant whose blocks these are. */
    public TenantId tenant() {
        return tenant;
    }

    /** The signal of the blocks. */
    public Signal signal() {
        return signal;
    }

    /** The blocks, in name order (which is time order). */
    public List<Entry> entries() {
        return entries;
    }

    /** This index with {@code added} too (replacing entries of the same names). */
    public BlockIndex with(Collection<Entry> added) {
        List<Entry> all = new ArrayList<>(entries);
        all.addAll(added);
        return of(tenant, signal, all);
    }

    /** This index without the blocks named in {@code removed}. */
    public BlockIndex without(Set<BlockName> removed) {
        return new BlockIndex(tenant, signal, entries.stream().filter(e -> !removed.contains(e.name())).toList());
    }

    /** The bytes of the body {@link #encode} writes, which may pass {@link #MAX_BODY_BYTES}. */
    public long bodyBytes() {
        long bodyBytes = 2L + tenant.value().length() + 4;
        for (Entry e : entries) {
            bodyBytes += e.encodedBytes();
        }
        return bodyBytes;
    }

    /**
     * The whole object.
     *
     * @throws IllegalStateException when the body would pass {@link #MAX_BODY_BYTES}
     */
    public byte[] encode() {
        long bodyBytes = bodyBytes();
        if (bodyBytes > MAX_BODY_BYTES) {
            throw new IllegalStateException("the index of " + tenant.value() + "/" + signal.dirName() + " would take "
                    + bodyBytes + " bytes, more than the " + MAX_BODY_BYTES + " an index may hold");
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + (int) bodyBytes).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) VERSION_CURRENT).put((byte) signalId(signal)).putShort((short) 0);
        out.putInt((int) bodyBytes).putInt(0);
        putShortString(out, tenant.value());
        out.putInt(entries.size());
        for (Entry e : entries) {
            putShortString(out, e.name().toString());
            out.putInt(e.meta().length).put(e.meta());
            out.putInt(e.traceIdx().length).put(e.traceIdx());
            out.putInt(e.attrIdx().length).put(e.attrIdx());
            out.putInt(e.dataFooter().length).put(e.dataFooter());
        }
        byte[] object = out.array();
        ByteBuffer.wrap(object, 12, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(crc(object));
        return object;
    }

    /**
     * Reads an object that should be the index of {@code tenant}'s {@code signal}. Every problem is a
     * {@link CorruptIndexException} saying what was wrong; lengths are checked before anything is
     * sized from them.
     */
    public static BlockIndex decode(byte[] object, TenantId tenant, Signal signal) throws CorruptIndexException {
        if (object.length < HEADER_BYTES) {
            throw new CorruptIndexException(object.length + " bytes, shorter than the " + HEADER_BYTES + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(object).order(ByteOrder.LITTLE_ENDIAN);
        for (byte b : MAGIC) {
            if (in.get() != b) {
                throw new CorruptIndexException("magic is not NIDX");
            }
        }
        int version = in.get() & 0xFF;
        if (version != VERSION_1 && version != VERSION_2) {
            throw new CorruptIndexException("unknown version " + version + ", expected " + VERSION_1 + " or "
                    + VERSION_2);
        }
        int signalId = in.get() & 0xFF;
        if (signalId != signalId(signal)) {
            throw new CorruptIndexException("it is the index of signal " + signalId + ", expected "
                    + signalId(signal) + " (" + signal.dirName() + ")");
        }
        if (in.getShort() != 0) {
            throw new CorruptIndexException("the pad bytes 6..7 are not 0");
        }
        long length = in.getInt() & 0xFFFFFFFFL;
        if (length > MAX_BODY_BYTES || length != object.length - HEADER_BYTES) {
            throw new CorruptIndexException("the header says a body of " + length + " bytes, the object holds "
                    + (object.length - HEADER_BYTES));
        }
        int stored = in.getInt();
        int computed = crc(object);
        if (stored != computed) {
            throw new CorruptIndexException(String.format("checksum failed: expected crc32c 0x%08x, actual 0x%08x",
                    stored, computed));
        }
        try {
            String owner = shortString(in);
            if (!owner.equals(tenant.value())) {
                throw new CorruptIndexException("it is the index of tenant " + TenantId.quote(owner) + ", expected "
                        + tenant.value());
            }
            long count = in.getInt() & 0xFFFFFFFFL;
            if (count * (version == VERSION_1 ? MIN_ENTRY_BYTES_V1 : MIN_ENTRY_BYTES) > in.remaining()) {
                throw new CorruptIndexException("it counts " + count + " blocks, more than its " + in.remaining()
                        + " bytes can hold");
            }
            List<Entry> entries = new ArrayList<>((int) count);
            for (long i = 0; i < count; i++) {
                String text = shortString(in);
                BlockName name = BlockName.parse(text).orElseThrow(() -> new CorruptIndexException(
                        "entry " + entries.size() + " is not a block name: " + TenantId.quote(text)));
                if (!entries.isEmpty() && entries.get(entries.size() - 1).name().compareTo(name) >= 0) {
                    throw new CorruptIndexException("entry " + entries.size() + " (" + name + ") is not after "
                            + entries.get(entries.size() - 1).name());
                }
                entries.add(new Entry(name, bytes(in), bytes(in), bytes(in),
                        version == VERSION_1 ? new byte[0] : bytes(in)));
            }
            if (in.hasRemaining()) {
                throw new CorruptIndexException(in.remaining() + " bytes follow the last entry");
            }
            return new BlockIndex(tenant, signal, Collections.unmodifiableList(entries));
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new CorruptIndexException("malformed body at byte " + in.position() + ": " + e);
        }
    }

    /** The wire id of a signal: written explicitly, never an ordinal. */
    private static int signalId(Signal signal) {
        return switch (signal) {
            case SPANS -> 1;
            case LOGS -> 2;
        };
    }

    private static void putShortString(ByteBuffer out, String ascii) {
        byte[] b = ascii.getBytes(StandardCharsets.US_ASCII);
        out.putShort((short) b.length).put(b);
    }

    private static String shortString(ByteBuffer in) {
        int length = in.getShort() & 0xFFFF;
        if (length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] b = new byte[length];
        in.get(b);
        return new String(b, StandardCharsets.US_ASCII);
    }

    private static byte[] bytes(ByteBuffer in) {
        long length = in.getInt() & 0xFFFFFFFFL;
        if (length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] b = new byte[(int) length];
        in.get(b);
        return b;
    }

    /** CRC-32C over header bytes 0..12 and the body. */
    private static int crc(byte[] object) {
        CRC32C crc = new CRC32C();
        crc.update(object, 0, 12);
        crc.update(object, HEADER_BYTES, object.length - HEADER_BYTES);
        return (int) crc.getValue();
    }

    /** Bytes of an index object that cannot be trusted; the message says what was wrong. */
    public static final class CorruptIndexException extends IOException {
        CorruptIndexException(String message) {
            super(message);
        }
    }

}
