package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link QueryEngine#spanTags}: TAGS files, a scan where one is cut short for the key asked, and the head. */
class SpanTagsTest {

    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "tags")), 0, "");
    private static final Scope SCOPE = new Scope("tags-test", "1", List.of(), 0, "");
    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final int USERS = BlockTags.MAX_VALUES_PER_KEY + 1;

    @TempDir
    Path dir;

    @Test
    void spanTags_keyCutShortInTheFile_scansTheBlockOnlyWhenItsValuesAreAsked() throws Exception {
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
            spans.add(span(i, List.of(KeyValue.of("user.id", "u" + i))));
        }
        FsBlockStore store = new FsBlockStore(dir);
        try (BufferAllocator allocator = new RootAllocator()) {
            new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        }
        SpanRecord unpublished = span(USERS, List.of(new KeyValue("head.only", AnyValue.of(true))));
        HeadSource head = new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                return List.of(new Part<>(null, List.of(unpublished)));
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of();
            }
        };
        try (QueryEngine engine = new QueryEngine(store, head, 1 << 20, 1)) {
            TagsResult names = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, key -> false);
            assertEquals(List.of("intrinsic.kind", "intrinsic.name", "intrinsic.status", "resource.service.name",
                    "span.head.only", "span.user.id"), List.copyOf(names.tags().keys().keySet()));
            assertEquals(1, names.blocks());
            assertEquals(0, names.scanned(), "the file answers for names although user.id's values are cut short");
            assertEquals(List.of(new AnyValue.Bool(true)), names.tags().keys().get("span.head.only").values());

            TagsResult users = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, "span.user.id"::equals);
            assertEquals(1, users.scanned(), "the block is read, since its file does not hold every user.id");
            assertTrue(users.tags().keys().get("span.user.id").truncated(), "more values than an answer keeps");
            assertEquals(BlockTags.MAX_VALUES_PER_KEY, users.tags().keys().get("span.user.id").values().size());

            TagsResult later = engine.spanTags(TenantId.DEFAULT, new TimeRange(T0 + 10 * 1_000_000_000L, Long.MAX_VALUE),
                    key -> false);
            assertEquals(0, later.blocks(), "the block ends before the range");
            assertEquals(List.of("intrinsic.kind", "intrinsic.name", "intrinsic.status", "resource.service.name",
                    "span.head.only"), List.copyOf(later.tags().keys().keySet()), "the head's span is in range");
        }
    }

    private static SpanRecord span(int i, List<KeyValue> attributes) {
        long start = i < USERS ? T0 + i : T0 + 20 * 1_000_000_000L;
        return new SpanRecord(RESOURCE, SCOPE, Bytes.fromHex(String.format("%032x", i + 1)),
                Bytes.fromHex(String.format("%016x", i + 1)), "", Bytes.EMPTY, 1, "work", 1, start, start + 1000,
                attributes, 0, List.of(), 0, List.of(), 0, 0, "");
    }
}
