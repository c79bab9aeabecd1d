package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A visit's two steps: the candidates are the blocks a lookup cannot rule out unread (here by time), and a read of
 * some of them hands over exactly those blocks' matches, its plan naming every block of the candidates, read or
 * ruled out; the head's matches are the caller's to hand over.
 */
class RecordVisitTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long T0 = 1_764_446_100_000_000_000L;

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private QueryEngine engine;
    private QueryPools pools;
    private RecordVisit visit;
    private final List<BlockRef> blocks = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(dir);
        BlockWriter writer = new BlockWriter(store, allocator, 16);
        Scope scope = new Scope("io.test", "1.0", List.of(), 0, "");
        String[] services = {"api", "db", "api"};
        for (int b = 0; b < services.length; b++) {
            Resource resource = new Resource(List.of(KeyValue.of("service.name", services[b])), 0, "");
            List<LogRecord> block = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                long time = T0 + (b * 100L + i) * 1_000_000_000L;
                block.add(LogRecord.builder().resource(resource).scope(scope).timeUnixNano(time)
                        .observedTimeUnixNano(time).body(AnyValue.of("n=" + (b * 100 + i))).build());
            }
            blocks.add(writer.writeLogs(TENANT, block).ref());
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
        BlockScan scan = new BlockScan(store, allocator, engine.sidecarCache());
        pools = new QueryPools(store, 2);
        visit = new RecordVisit(store, HeadSource.EMPTY, new LookupPlanner(store, new BlockCatalog(store, 0, 0),
                engine.sidecarCache(), scan, pools), scan, pools);
    }

    @AfterEach
    void tearDown() {
        pools.close();
        engine.close();
        allocator.close();
    }

    @Test
    void readsTheBlocksItIsGiven_andPlansEveryCandidate() throws Exception {
        Expr api = QueryParser.parse("{ resource.service.name = \"api\" }", Signal.LOGS);
        TimeRange range = new TimeRange(T0 + 50_000_000_000L, T0 + 300_000_000_000L);
        RecordVisit.Candidates<LogRecord> candidates = visit.candidates(TENANT, Signal.LOGS,
                SearchTarget.logs(api, range), range, Mechanisms.ALL, List.of(), r -> true);
        assertEquals(List.of(blocks.get(2), blocks.get(1)), candidates.blocks(), "the first block is ruled out");
        assertEquals(Set.of(blocks.get(0)), candidates.decided().keySet());

        List<String> bodies = Collections.synchronizedList(new ArrayList<>());
        try (QueryBudget budget = engine.budget()) {
            VisitResult read = visit.read(candidates, List.of(blocks.get(2)),
                    r -> bodies.add(((AnyValue.Str) r.body()).value()), budget);
            assertEquals(List.of(), read.problems());
            // The block read and the one ruled out; the candidate left to the caller is not in the plan.
            assertEquals(List.of(blocks.get(2).name().toString(), blocks.get(0).name().toString()),
                    read.plan().blocks().stream().map(BlockDecision::block).toList());
            assertEquals(40, read.plan().totals().matched());
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            expected.add("n=" + (200 + i));
        }
        assertEquals(new TreeSet<>(expected), new TreeSet<>(bodies));
        assertEquals(40, bodies.size(), "each record once");
    }
}
