package dev.needle.ingest.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write-ahead log segment's bytes, written out by hand from {@link WalSegmentFormat}'s Javadoc tables. */
class WalSegmentFormatTest {

    /**
     * The header, then entry 3 of tenant {@code ab}'s logs with the payload {@code 0a 00}. Little-endian.
     * The CRC is CRC-32C (Castagnoli, as {@code crc32c} in Python or Go computes it) of the 15 body bytes.
     */
    private static final String GOLDEN = ""
            + "4e57414c" + "01" + "000000"   // header: "NWAL", version 1, three zero bytes
            + "0f000000"                      // L = 15: 11 fixed bytes + T + the payload's 2
            + "594a4fc9"                      // CRC-32C of the body, 0xc94f4a59
            + "02"                            // signal: logs
            + "0300000000000000"              // sequence 3
            + "0200"                          // T = 2
            + "6162"                          // "ab"
            + "0a00";                         // the payload

    @TempDir
    Path dir;

    @Test
    void headerAndEntry_areTheGoldenBytes() {
        WalEntry entry = new WalEntry(3, Signal.LOGS, TenantId.of("ab"), new byte[] {0x0a, 0x00});
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, WalSegmentFormat.header());
        for (ByteBuffer b : WalSegmentFormat.encode(entry)) {
            write(out, b);
        }
        assertEquals(GOLDEN, HexFormat.of().formatHex(out.toByteArray()));
    }

    @Test
    void goldenBytes_readBackAsTheEntry() throws IOException {
        byte[] bytes = HexFormat.of().parseHex(GOLDEN);
        Path segment = Files.write(dir.resolve("00000000000000000003.wal"), bytes);
        WalSegmentFormat.Contents read;
        try (FileChannel channel = FileChannel.open(segment)) {
            read = WalSegmentFormat.read(channel);
        }
        assertNull(read.problem());
        assertEquals(bytes.length, read.validBytes());
        assertEquals(1, read.entries().size());
        WalEntry entry = read.entries().get(0);
        assertEquals(3, entry.sequence());
        assertEquals(Signal.LOGS, entry.signal());
        assertEquals(TenantId.of("ab"), entry.tenant());
        assertEquals(2, entry.payloadLength());
        assertArrayEquals(new byte[] {0x0a, 0x00}, entry.payload());
    }

    @Test
    void goldenBytes_areTheOnesFormatMdGives() throws IOException {
        String doc = Files.readString(Path.of("../docs/FORMAT.md"));
        int section = doc.indexOf("## Write-ahead log segments");
        int open = doc.indexOf("```\n", section) + 4;
        String stated = doc.substring(open, doc.indexOf("```", open)).replaceAll("\\s", "");
        assertEquals(GOLDEN, stated);
    }

    private static void write(ByteArrayOutputStream out, ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        out.writeBytes(bytes);
    }
}
