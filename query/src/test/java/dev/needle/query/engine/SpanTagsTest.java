package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.TagsOnlyPairs;
import dev.needle.blocks.index.Version1Tags;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
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
        try (QueryEngine engine = new QueryEngine(store, head(unpublished), 1 << 20, 1)) {
            TagsResult names = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, key -> false, false);
            assertEquals(List.of("intrinsic.kind", "intrinsic.name", "intrinsic.rootName", "intrinsic.rootServiceName",
                    "intrinsic.status", "resource.service.name", "span.head.only", "span.user.id"),
                    List.copyOf(names.tags().keys().keySet()));
            assertEquals(1, names.blocks());
            assertEquals(0, names.scanned(), "the file answers for names although user.id's values are cut short");
            assertEquals(List.of(new AnyValue.Bool(true)), names.tags().keys().get("span.head.only").values());

            TagsResult users = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, "span.user.id"::equals, false);
            assertEquals(1, users.scanned(), "the block is read, since its file does not hold every user.id");
            assertTrue(users.tags().keys().get("span.user.id").truncated(), "more values than an answer keeps");
            assertEquals(BlockTags.MAX_VALUES_PER_KEY, users.tags().keys().get("span.user.id").values().size());

            TagsResult later = engine.spanTags(TenantId.DEFAULT, new TimeRange(T0 + 10 * 1_000_000_000L, Long.MAX_VALUE),
                    key -> false, false);
            assertEquals(0, later.blocks(), "the block ends before the range");
            assertEquals(List.of("intrinsic.kind", "intrinsic.name", "intrinsic.rootName", "intrinsic.rootServiceName",
                    "intrinsic.status", "resource.service.name", "span.head.only"),
                    List.copyOf(later.tags().keys().keySet()), "the head's span is in range");
        }
    }

    @Test
    void spanTags_versionOneFile_isScannedOnlyWhenEventLinkOrStatusMessageKeysAreAsked() throws Exception {
        SpanEvent event = new SpanEvent(T0, "exception", List.of(KeyValue.of("exception.type", "IOException")), 0);
        SpanLink link = new SpanLink(Bytes.fromHex("0".repeat(31) + "1"), Bytes.fromHex("0".repeat(15) + "1"), "",
                List.of(KeyValue.of("link.kind", "follows")), 0, 0);
        SpanRecord withAll = withEventsLinksAndStatus(span(0, List.of()), List.of(event), List.of(link), "boom");
        FsBlockStore store = new FsBlockStore(dir);
        Path blockDir;
        try (BufferAllocator allocator = new RootAllocator()) {
            blockDir = store.blockDir(new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, List.of(withAll)).ref());
        }
        Version1Tags.downgrade(blockDir);
        SpanRecord unpublished = withEventsLinksAndStatus(span(USERS, List.of()),
                List.of(new SpanEvent(T0, "retry", List.of(), 0)), List.of(), "");
        try (QueryEngine engine = new QueryEngine(store, head(unpublished), 1 << 20, 1)) {
            TagsResult plain = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, key -> false, false);
            assertEquals(0, plain.scanned(), "the file answers what version 1 holds");
            assertEquals(List.of(new AnyValue.Str("retry")), plain.tags().keys().get(TagsOnlyPairs.EVENT_NAME).values(),
                    "the head's spans give every pair");

            TagsResult tagsOnly = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, TagsOnlyPairs.EVENT_NAME::equals, true);
            assertEquals(1, tagsOnly.scanned(), "a version 1 file cannot say a block has no events");
            Map<String, BlockTags.Values> keys = tagsOnly.tags().keys();
            assertEquals(List.of(new AnyValue.Str("exception"), new AnyValue.Str("retry")),
                    keys.get(TagsOnlyPairs.EVENT_NAME).values());
            assertEquals(List.of(new AnyValue.Str("IOException")), keys.get("event.exception.type").values());
            assertEquals(List.of(new AnyValue.Str("follows")), keys.get("link.link.kind").values());
            assertEquals(List.of(new AnyValue.Str("boom")), keys.get(TagsOnlyPairs.STATUS_MESSAGE).values());
        }
    }

    /**
     * Property: for random spans with events, links and status messages in blocks whose TAGS is of
     * version 2, of version 1 or missing, and in the head, the keys and values spanTags gives are those
     * of every span read back from the blocks (a full scan, no pruning) and the head.
     */
    @Test
    void spanTags_randomBlocks_equalAFullScan() throws Exception {
        for (long s = 1; s <= 3; s++) {
            long seed = s;
            Path root = dir.resolve("seed-" + seed);
            SplittableRandom random = new SplittableRandom(seed);
            FsBlockStore store = new FsBlockStore(root);
            List<SpanRecord> head = new ArrayList<>();
            try (BufferAllocator allocator = new RootAllocator()) {
                BlockWriter writer = new BlockWriter(store, allocator, 16);
                for (int b = 0; b < 4; b++) {
                    List<SpanRecord> block = new ArrayList<>();
                    for (int i = 0; i < 40; i++) {
                        block.add(randomSpan(random, b * 1000 + i));
                    }
                    Path blockDir = store.blockDir(writer.writeSpans(TenantId.DEFAULT, block).ref());
                    if (b == 1) {
                        Version1Tags.downgrade(blockDir);
                    } else if (b == 2) {
                        Files.delete(blockDir.resolve(BlockTags.FILE));
                    }
                }
            }
            for (int i = 0; i < 10; i++) {
                head.add(randomSpan(random, 9000 + i));
            }
            try (QueryEngine engine = new QueryEngine(store, head(head.toArray(SpanRecord[]::new)), 1 << 20, 1)) {
                BlockTags.Builder scanned = new BlockTags.Builder();
                engine.searchSpans(TenantId.DEFAULT, new Expr.MatchAll(), TimeRange.ALL, 100_000,
                        Mechanisms.NONE).records().forEach(TagsOnlyPairs.allOf(scanned));
                Map<String, BlockTags.Values> all = scanned.build().keys();

                TagsResult everything = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, key -> true, true);
                assertEquals(all, everything.tags().keys(), "seed " + seed);
                assertEquals(2, everything.scanned(), "seed " + seed + ": the version 1 file's block and the one without");

                TagsResult indexed = engine.spanTags(TenantId.DEFAULT, TimeRange.ALL, key -> true, false);
                assertEquals(1, indexed.scanned(), "seed " + seed + ": the version 1 file answers ATTR_IDX's keys");
                all.forEach((key, values) -> {
                    if (!TagsOnlyPairs.holds(key)) {
                        assertEquals(values, indexed.tags().keys().get(key), "seed " + seed + ": " + key);
                    }
                });
            }
        }
    }

    private static SpanRecord randomSpan(SplittableRandom random, int i) {
        List<SpanEvent> events = new ArrayList<>();
        for (int e = random.nextInt(3); e > 0; e--) {
            events.add(new SpanEvent(T0 + i, "event-" + random.nextInt(5),
                    List.of(randomAttribute(random, "exception."), randomAttribute(random, "retry.")), 0));
        }
        List<SpanLink> links = new ArrayList<>();
        for (int l = random.nextInt(2); l > 0; l--) {
            links.add(new SpanLink(Bytes.fromHex(String.format("%032x", random.nextInt(1000) + 1)),
                    Bytes.fromHex(String.format("%016x", random.nextInt(1000) + 1)), "",
                    List.of(randomAttribute(random, "link.")), 0, 0));
        }
        String message = random.nextInt(3) == 0 ? "" : "failure " + random.nextInt(6);
        SpanRecord s = withEventsLinksAndStatus(span(i, List.of(randomAttribute(random, "http."))), events, links, message);
        // Roots (no parent) give rootName and rootServiceName; a child's name and service must not.
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "svc-" + random.nextInt(4))), 0, "");
        Bytes parent = random.nextBoolean() ? Bytes.EMPTY : Bytes.fromHex(String.format("%016x", i + 100_000));
        return s.toBuilder().resource(resource).traceState("").parentSpanId(parent).name("op-" + random.nextInt(8))
                .droppedAttributesCount(0).droppedEventsCount(0).droppedLinksCount(0).build();
    }

    /** An attribute under {@code prefix} of one of a few keys, with a value of any scalar type. */
    private static KeyValue randomAttribute(SplittableRandom random, String prefix) {
        String key = prefix + "k" + random.nextInt(4);
        return switch (random.nextInt(4)) {
            case 0 -> KeyValue.of(key, "v" + random.nextInt(20));
            case 1 -> KeyValue.of(key, random.nextInt(20));
            case 2 -> new KeyValue(key, AnyValue.of(random.nextInt(20) / 4.0));
            default -> new KeyValue(key, AnyValue.of(random.nextBoolean()));
        };
    }

    private static SpanRecord withEventsLinksAndStatus(SpanRecord s, List<SpanEvent> events, List<SpanLink> links,
                                                       String statusMessage) {
        return s.toBuilder().events(events).droppedEventsCount(0).links(links).droppedLinksCount(0)
                .statusCode(statusMessage.isEmpty() ? 0 : 2).statusMessage(statusMessage).build();
    }

    private static HeadSource head(SpanRecord... unpublished) {
        return new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                return List.of(new Part<>(null, List.of(unpublished)));
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of();
            }
        };
    }

    private static SpanRecord span(int i, List<KeyValue> attributes) {
        long start = i < USERS ? T0 + i : T0 + 20 * 1_000_000_000L;
        return SpanRecord.builder().resource(RESOURCE).scope(SCOPE)
                .traceId(Bytes.fromHex(String.format("%032x", i + 1)))
                .spanId(Bytes.fromHex(String.format("%016x", i + 1))).flags(1).name("work").kind(1)
                .startTimeUnixNano(start).endTimeUnixNano(start + 1000).attributes(attributes).build();
    }
}
