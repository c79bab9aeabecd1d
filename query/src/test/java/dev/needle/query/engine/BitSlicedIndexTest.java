package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index's filters, held bit-sliced, decide as the blocks' own sidecars: a damaged or missing
 * filter inside a sound index fails open for its block alone and EXPLAIN names why; as the index
 * loses and regains blocks between polls, every answer stays the full scan's.
 */
class BitSlicedIndexTest {

    private static final TenantId TENANT = TenantId.of("acme");
    private static final List<String> SEARCHES = List.of("{ resource.service.name = \"payment\" }",
            "{ resource.service.name = \"nowhere\" }", "{ span.http.status_code = 503 || resource.service.name = \"cart\" }");

    @TempDir
    Path dir;

    @Test
    void damagedFiltersInASoundIndex_failOpenAlone_andAnswersMatchTheFullScan() throws Exception {
        try (RootAllocator allocator = new RootAllocator()) {
            BlockStore store = new FsBlockStore(dir.resolve("data"));
            Corpus corpus = Corpus.write(store, allocator, TENANT, 11, 8, 150);
            Corpus.writeIndex(store, TENANT);
            List<BlockName> names = corpus.spanBlocks.stream().map(b -> b.name()).toList();
            rewriteIndex(store, entries -> {
                List<BlockIndex.Entry> out = new ArrayList<>();
                for (BlockIndex.Entry e : entries) {
                    if (e.name().equals(names.get(0))) {
                        byte[] flipped = e.traceIdx().clone();
                        flipped[flipped.length - 1] ^= 1;
                        e = new BlockIndex.Entry(e.name(), e.meta(), flipped, e.attrIdx());
                    } else if (e.name().equals(names.get(1))) {
                        e = new BlockIndex.Entry(e.name(), e.meta(), new byte[0], Arrays.copyOf(e.attrIdx(), 20));
                    }
                    out.add(e);
                }
                return out;
            });
            try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2, QueryLimits.DEFAULTS, Duration.ZERO,
                    Duration.ofHours(1))) {
                Explain plan = assertAnswersAsFullScan(engine, corpus);
                Map<String, BlockDecision> byBlock = plan.blocks().stream()
                        .collect(Collectors.toMap(BlockDecision::block, d -> d));
                assertEquals("crc", byBlock.get(names.get(0).toString()).failedOpen());
                assertEquals("missing", byBlock.get(names.get(1).toString()).failedOpen());
                List<BlockDecision> byFilter = plan.blocks().stream()
                        .filter(d -> d.decidedBy() == BlockDecision.Step.TRACE_IDX).toList();
                assertTrue(byFilter.size() > names.size() / 2, plan.blocks().toString());
                assertTrue(byFilter.stream().allMatch(d -> d.pruned() && d.reason().endsWith("(its filter in the index)")),
                        byFilter.toString());
                SearchResult<SpanRecord> search = engine.searchSpans(TENANT,
                        QueryParser.parse(SEARCHES.get(1), Signal.SPANS), TimeRange.ALL, 100, Mechanisms.ALL);
                BlockDecision truncated = search.plan().blocks().stream()
                        .filter(d -> d.block().equals(names.get(1).toString())).findFirst().orElseThrow();
                assertEquals("length", truncated.failedOpen());

                // The index loses three blocks (the listing still finds them), then regains them.
                List<BlockIndex.Entry> all = index(store).entries();
                rewriteIndex(store, entries -> entries.stream().filter(e -> !names.subList(2, 5).contains(e.name())).toList());
                assertAnswersAsFullScan(engine, corpus);
                rewriteIndex(store, entries -> all);
                assertAnswersAsFullScan(engine, corpus);
            }
        }
    }

    /** Trace lookups and searches with every mechanism equal the full scan's; returns an absent id's span plan. */
    private static Explain assertAnswersAsFullScan(QueryEngine engine, Corpus corpus) throws Exception {
        Bytes absent = corpus.absentTraceId();
        for (Bytes id : List.of(corpus.traceIds.get(3), corpus.traceIds.get(40), corpus.traceIds.get(90), absent)) {
            TraceResult pruned = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
            TraceResult scanned = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.NONE, true);
            assertEquals(scanned.spans(), pruned.spans());
            assertEquals(scanned.logs(), pruned.logs());
            assertTrue(pruned.spanPlan().source().startsWith("the index ("), pruned.spanPlan().source());
            // Over all time one probe decides the blocks and defers the others' decisions; a range that holds
            // every block decides them one by one: the plans must be the same, block for block and in total
            // (both after the lookups above, so that both find the blocks' footers cached).
            Explain oneByOne = engine.trace(TENANT, id, new TimeRange(Long.MIN_VALUE, Long.MAX_VALUE - 1),
                    Mechanisms.ALL, false).spanPlan();
            Explain probed = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false).spanPlan();
            assertEquals(oneByOne.blocks(), probed.blocks());
            assertEquals(oneByOne.totals(), probed.totals());
        }
        for (String query : SEARCHES) {
            assertEquals(
                    new HashSet<>(engine.searchSpans(TENANT, QueryParser.parse(query, Signal.SPANS), TimeRange.ALL,
                            100_000, Mechanisms.NONE).records()),
                    new HashSet<>(engine.searchSpans(TENANT, QueryParser.parse(query, Signal.SPANS), TimeRange.ALL,
                            100_000, Mechanisms.ALL).records()), query);
        }
        return engine.trace(TENANT, absent, TimeRange.ALL, Mechanisms.ALL, false).spanPlan();
    }

    private static BlockIndex index(BlockStore store) throws Exception {
        return BlockIndex.decode(store.readIndex(TENANT, Signal.SPANS, null).orElseThrow().bytes(), TENANT, Signal.SPANS);
    }

    private static void rewriteIndex(BlockStore store, UnaryOperator<List<BlockIndex.Entry>> change) throws Exception {
        IndexObject read = store.readIndex(TENANT, Signal.SPANS, null).orElseThrow();
        BlockIndex index = BlockIndex.decode(read.bytes(), TENANT, Signal.SPANS);
        byte[] bytes = BlockIndex.of(TENANT, Signal.SPANS, change.apply(index.entries())).encode();
        store.writeIndex(TENANT, Signal.SPANS, bytes, read.token());
    }
}
