package dev.needle.blocks.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** data.arrow's copy of the blocks a block replaces: written only where there are some, read back, damage refused. */
class FooterReplacesTest {

    private static final TenantId ACME = TenantId.of("acme");

    @TempDir
    Path dir;

    @Test
    void read_replacingAndOrdinaryBlocks_theirListOrNone_andDamageRefused() throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        List<SpanRecord> spans = new RandomRecords(3).spans(30);
        try (RootAllocator allocator = new RootAllocator()) {
            BlockWriter writer = new BlockWriter(store, allocator);
            BlockRef a = writer.writeSpans(ACME, spans.subList(0, 10)).ref();
            BlockRef b = writer.writeSpans(ACME, spans.subList(10, 20)).ref();
            BlockRef k = writer.write(SignalKind.SPANS, ACME, spans.subList(0, 20), "k1", List.of(b.name(), a.name())).ref();

            List<BlockName> inOrder = List.of(a.name(), b.name()).stream().sorted().toList();
            assertEquals(Optional.of(inOrder), FooterReplaces.read(store, k));
            assertEquals(Optional.empty(), FooterReplaces.read(store, a), "a block that replaces none has no entry");

            byte[] footer;
            try (SeekableByteChannel data = store.open(k, BlockLayout.DATA)) {
                footer = DataFooter.read(data);
            }
            assertThrows(CorruptBlockException.class, () -> FooterReplaces.of(k, Arrays.copyOf(footer, footer.length - 3)));
            assertThrows(CorruptBlockException.class, () -> FooterReplaces.of(k, new byte[0]));
            // Another block's name, of the same length: outside k's range, so not a list k could hold.
            String outside = new BlockName(1, 2, a.name().id()).toString();
            byte[] renamed = replaceFirst(footer, a.name().toString(), outside);
            assertThrows(CorruptBlockException.class, () -> FooterReplaces.of(k, renamed));
            assertThrows(CorruptBlockException.class, () -> FooterReplaces.of(a, footer),
                    "a list naming blocks outside the block's own range");
        }
    }

    private static byte[] replaceFirst(byte[] bytes, String from, String to) {
        byte[] f = from.getBytes(StandardCharsets.UTF_8);
        byte[] t = to.getBytes(StandardCharsets.UTF_8);
        assertEquals(f.length, t.length);
        for (int at = 0; at + f.length <= bytes.length; at++) {
            if (Arrays.equals(bytes, at, at + f.length, f, 0, f.length)) {
                byte[] out = bytes.clone();
                System.arraycopy(t, 0, out, at, t.length);
                return out;
            }
        }
        throw new IllegalArgumentException(from + " is not in the footer");
    }
}
