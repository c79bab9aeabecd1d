package dev.needle.ingest.wal;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The byte layout of a write-ahead log segment file, {@code wal/<first sequence, 20 digits>.wal}.
 * Little-endian.
 *
 * <table>
 *   <caption>Segment header (8 bytes), then entries one after another</caption>
 *   <tr><th>offset</th><th>size</th><th>field</th></tr>
 *   <tr><td>0</td><td>4</td><td>magic, ASCII {@code NWAL}</td></tr>
 *   <tr><td>4</td><td>1</td><td>version ({@value #VERSION_1})</td></tr>
 *   <tr><td>5</td><td>3</td><td>zero</td></tr>
 * </table>
 *
 * <table>
 *   <caption>One entry</caption>
 *   <tr><th>offset</th><th>size</th><th>field</th></tr>
 *   <tr><td>0</td><td>4</td><td>L, the length of the body (everything after the CRC)</td></tr>
 *   <tr><td>4</td><td>4</td><td>CRC-32C of the body</td></tr>
 *   <tr><td>8</td><td>1</td><td>signal: 1 spans, 2 logs</td></tr>
 *   <tr><td>9</td><td>8</td><td>sequence</td></tr>
 *   <tr><td>17</td><td>2</td><td>T, the length of the tenant id's UTF-8</td></tr>
 *   <tr><td>19</td><td>T</td><td>the tenant id</td></tr>
 *   <tr><td>19 + T</td><td>L − 11 − T</td><td>the payload: an OTLP protobuf export request</td></tr>
 * </table>
 *
 * A crash can leave the last entry half written (a torn tail): reading stops at the first entry
 * that is short, fails its CRC or has impossible fields, and says where the good bytes end, so
 * that recovery cuts the file there. Everything before was fsynced before it was acknowledged.
 */
public final class WalSegmentFormat {

    /** ASCII {@code NWAL} read as a little-endian u32. */
    public static final int MAGIC = 'N' | 'W' << 8 | 'A' << 16 | 'L' << 24;
    /** The first and only version. */
    public static final int VERSION_1 = 1;
    /** Segment header length. */
    public static final int HEADER_BYTES = 8;
    /** Entry bytes before the body. */
    public static final int ENTRY_PREFIX_BYTES = 8;
    /** The largest body an entry may have: a request is at most 64 MiB decompressed, re-encoded smaller. */
    public static final int MAX_BODY_BYTES = 256 << 20;
    private static final int FIXED_BODY_BYTES = 11;

    private WalSegmentFormat() {
    }

    /** The 8-byte segment header. */
    public static ByteBuffer header() {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).put((byte) VERSION_1).put((byte) 0).put((byte) 0).put((byte) 0);
        return b.flip();
    }

    /**
     * The bytes of one entry, prefix included, as two buffers to be written one after the other:
     * the prefix and the fields before the payload, then the payload itself, not copied (a request's
     * payload is up to megabytes).
     */
    public static ByteBuffer[] encode(WalEntry entry) {
        byte[] tenant = entry.tenant().value().getBytes(StandardCharsets.UTF_8);
        int fields = FIXED_BODY_BYTES + tenant.length;
        int body = fields + entry.payloadLength();
        ByteBuffer b = ByteBuffer.allocate(ENTRY_PREFIX_BYTES + fields).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(body).putInt(0);
        b.put((byte) (entry.signal() == Signal.SPANS ? 1 : 2)).putLong(entry.sequence()).putShort((short) tenant.length)
                .put(tenant);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), ENTRY_PREFIX_BYTES, fields);
        crc.update(entry.payload(), 0, entry.payloadLength());
        b.putInt(4, (int) crc.getValue());
        return new ByteBuffer[] {b.flip(), ByteBuffer.wrap(entry.payload(), 0, entry.payloadLength())};
    }

    /**
     * What a segment holds: its entries and where its good bytes end.
     *
     * @param entries    the entries that were read whole and verified
     * @param validBytes the length of the file up to the end of the last good entry
     * @param problem    why reading stopped before the end of the file, or null when it did not
     */
    public record Contents(List<WalEntry> entries, long validBytes, String problem) {
    }

    /** Reads a whole segment; never throws for bad bytes, only for I/O errors. */
    public static Contents read(FileChannel channel) throws IOException {
        long size = channel.size();
        List<WalEntry> entries = new ArrayList<>();
        ByteBuffer head = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        if (size < HEADER_BYTES || readAt(channel, head, 0) < HEADER_BYTES || head.getInt(0) != MAGIC
                || head.get(4) != VERSION_1) {
            return new Contents(entries, 0, "the segment header is missing or wrong");
        }
        long at = HEADER_BYTES;
        ByteBuffer prefix = ByteBuffer.allocate(ENTRY_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        while (at < size) {
            prefix.clear();
            if (readAt(channel, prefix, at) < ENTRY_PREFIX_BYTES) {
                return new Contents(entries, at, "a torn entry prefix at byte " + at);
            }
            int body = prefix.getInt(0);
            int crc = prefix.getInt(4);
            if (body < FIXED_BODY_BYTES || body > MAX_BODY_BYTES || at + ENTRY_PREFIX_BYTES + body > size) {
                return new Contents(entries, at, "an entry at byte " + at + " claims " + body + " bytes");
            }
            ByteBuffer b = ByteBuffer.allocate(body).order(ByteOrder.LITTLE_ENDIAN);
            readAt(channel, b, at + ENTRY_PREFIX_BYTES);
            CRC32C check = new CRC32C();
            check.update(b.array(), 0, body);
            if ((int) check.getValue() != crc) {
                return new Contents(entries, at, "the entry at byte " + at + " fails its CRC");
            }
            WalEntry entry = decodeBody(b);
            if (entry == null) {
                return new Contents(entries, at, "the entry at byte " + at + " has impossible fields");
            }
            entries.add(entry);
            at += ENTRY_PREFIX_BYTES + body;
        }
        return new Contents(entries, at, null);
    }

    private static WalEntry decodeBody(ByteBuffer b) {
        int signal = b.get(0);
        long sequence = b.getLong(1);
        int tenantLength = b.getShort(9) & 0xFFFF;
        if ((signal != 1 && signal != 2) || sequence < 1 || FIXED_BODY_BYTES + tenantLength > b.capacity()) {
            return null;
        }
        TenantId tenant;
        try {
            tenant = TenantId.of(new String(b.array(), FIXED_BODY_BYTES, tenantLength, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return null;
        }
        byte[] payload = new byte[b.capacity() - FIXED_BODY_BYTES - tenantLength];
        System.arraycopy(b.array(), FIXED_BODY_BYTES + tenantLength, payload, 0, payload.length);
        return new WalEntry(sequence, signal == 1 ? Signal.SPANS : Signal.LOGS, tenant, payload);
    }

    private static int readAt(FileChannel channel, ByteBuffer b, long position) throws IOException {
        int total = 0;
        while (b.hasRemaining()) {
            int n = channel.read(b, position + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }
}
