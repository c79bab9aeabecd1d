package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BatchAttrIdxBuilder;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BATCH_ATTR_IDX in the engine, over real blocks of 16 record batches: a batch it rules out never
 * holds a match (random AND/OR queries on present and absent values of every scope and the
 * intrinsics answer exactly what a plain scan finds, batch by batch too); a block that ATTR_IDX lets
 * through by a false positive is pruned without reading a batch; a rare value reads its one batch;
 * and a missing or damaged file only costs reading every batch, counted as failed open.
 */
class BatchAttrIdxTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final int BLOCKS = 5;
    private static final int SPANS_PER_BLOCK = 1_600;
    private static final int BATCH_ROWS = 100;
    private static final String[] SERVICES = {"checkout", "cart", "payment", "frontend"};

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;
    private QueryEngine engine;
    private final List<SpanRecord> spans = new ArrayList<>();
    private final List<BlockRef> blocks = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        SplittableRandom random = new SplittableRandom(97);
        BlockWriter writer = new BlockWriter(store, allocator, BATCH_ROWS);
        List<Scope> scopes = List.of(new Scope("io.http", "1.0", List.of(KeyValue.of("scope.kind", "http")), 0, ""),
                new Scope("io.rpc", "2.1", List.of(KeyValue.of("scope.kind", "rpc")), 0, ""));
        for (int b = 0; b < BLOCKS; b++) {
            List<SpanRecord> block = new ArrayList<>();
            for (int i = 0; i < SPANS_PER_BLOCK; i++) {
                block.add(span(random, b, i, scopes));
            }
            spans.addAll(block);
            blocks.add(writer.writeSpans(TENANT, block).ref());
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, 16L << 20, 2);
    }

    @AfterEach
    void tearDown() {
        engine.close();
        allocator.close();
    }

    /** Spans whose user, request and deploy ids are rare, whose services and routes are common. */
    private static SpanRecord span(SplittableRandom random, int block, int i, List<Scope> scopes) {
        String service = SERVICES[random.nextInt(SERVICES.length)];
        Resource resource = new Resource(List.of(KeyValue.of("service.name", service),
                KeyValue.of("deploy.id", service + "-" + block + "-" + random.nextInt(40))), 0, "");
        List<KeyValue> attributes = new ArrayList<>();
        attributes.add(KeyValue.of("http.response.status_code", random.nextInt(10) == 0 ? 500 : 200));
        attributes.add(KeyValue.of("user.id", "u" + random.nextInt(3_000)));
        attributes.add(KeyValue.of("request.id", "r" + block + "-" + i));
        attributes.add(new KeyValue("sampling.ratio", AnyValue.of(random.nextBoolean() ? 0.25 : 1.0)));
        attributes.add(new KeyValue("cache.hit", AnyValue.of(random.nextInt(3) == 0)));
        if (random.nextInt(50) == 0) {
            attributes.add(new KeyValue("retries", AnyValue.of((double) random.nextInt(4))));
        }
        byte[] trace = new byte[16];
        random.nextBytes(trace);
        byte[] spanId = new byte[8];
        random.nextBytes(spanId);
        long start = T0 + block * 60_000_000_000L + random.nextLong(60_000_000_000L);
        return SpanRecord.builder().resource(resource).scope(scopes.get(random.nextInt(scopes.size())))
                .traceId(Bytes.wrap(trace)).spanId(Bytes.wrap(spanId)).flags(1).name("op-" + random.nextInt(40))
                .kind(1 + random.nextInt(5)).startTimeUnixNano(start)
                .endTimeUnixNano(start + 1_000_000L * (1 + random.nextInt(900))).attributes(attributes)
                .statusCode(random.nextInt(20) == 0 ? 2 : 0).build();
    }

    @Test
    void randomQueries_answerThePlainScan_andNoRuledOutBatchHoldsAMatch() throws Exception {
        SplittableRandom random = new SplittableRandom(101);
        int batchesRuledOut = 0;
        for (int q = 0; q < 120; q++) {
            Expr expr = QueryParser.parse(randomQuery(random), Signal.SPANS);
            List<SpanRecord> expected = spans.stream().filter(s -> Values.matches(expr, Values.of(s))).toList();
            for (Mechanisms m : List.of(Mechanisms.ALL, Mechanisms.NONE, new Mechanisms(false, false, true, false))) {
                SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, TimeRange.ALL, 100_000, m);
                assertEquals(new HashSet<>(expected), new HashSet<>(result.records()), expr + " " + m);
                assertEquals(expected.size(), result.records().size(), expr + " " + m);
            }
            batchesRuledOut += checkEveryRuledOutBatchHoldsNoMatch(expr);
        }
        assertTrue(batchesRuledOut > 1_000, "the file ruled out only " + batchesRuledOut + " batches");
    }

    /** Reads every batch of every block and checks that a batch the check rules out holds no matching span. */
    private int checkEveryRuledOutBatchHoldsNoMatch(Expr expr) throws IOException {
        BatchAttrIdxCheck check = BatchAttrIdxCheck.of(expr);
        if (check == null) {
            return 0;
        }
        int ruledOut = 0;
        for (BlockRef ref : blocks) {
            Sidecar file = BlockReader.readSidecar(store, ref, BloomSidecar.BATCH_ATTR_IDX);
            assertTrue(file.isVerified(), file.detail());
            try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                for (int b = 0; b < reader.batchCount(); b++) {
                    String why = check.ruledOut(file, b);
                    if (why == null) {
                        continue;
                    }
                    ruledOut++;
                    try (VectorSchemaRoot root = reader.readAll(b)) {
                        SpanColumns columns = new SpanColumns(root);
                        for (int row = 0; row < root.getRowCount(); row++) {
                            assertFalse(Values.matches(expr, Values.of(columns.read(row))),
                                    expr + ": batch " + b + " of " + ref + " holds a match, yet " + why);
                        }
                    }
                }
            }
        }
        return ruledOut;
    }

    @Test
    void falsePositiveBlock_isPrunedWithoutReadingABatch() throws Exception {
        // An absent request id that some block's ATTR_IDX answers "maybe" for, and BATCH_ATTR_IDX rules
        // out of every batch of that block.
        for (int i = 0; ; i++) {
            String value = "absent-" + i;
            AttributeHash pair = AttributeHash.ofString("span.request.id", value);
            for (BlockRef ref : blocks) {
                Sidecar attrIdx = BlockReader.readSidecar(store, ref, BloomSidecar.ATTR_IDX);
                Sidecar batchIdx = BlockReader.readSidecar(store, ref, BloomSidecar.BATCH_ATTR_IDX);
                if (!attrIdx.mayContain(pair) || anyBatchMayContain(batchIdx, pair)) {
                    continue;
                }
                Expr expr = QueryParser.parse("{ span.request.id = \"" + value + "\" }", Signal.SPANS);
                SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, TimeRange.ALL, 20, Mechanisms.ALL);
                assertTrue(result.records().isEmpty());
                BlockDecision d = decisionOf(result, ref);
                assertEquals(BlockDecision.Step.BATCH_ATTR_IDX, d.decidedBy(), d.toString());
                assertTrue(d.pruned() && d.opened(), d.toString());
                assertEquals(0, d.batchesRead());
                assertEquals(SPANS_PER_BLOCK / BATCH_ROWS, d.batchesSkipped());
                assertEquals(0, d.rowsScanned());
                assertEquals(d.bytesToDecide(), d.bytesRead(), "nothing read past meta.json, the footer and the sidecars");
                assertTrue(d.reason().startsWith("every batch is ruled out by BATCH_ATTR_IDX"), d.reason());
                assertEquals(1, result.plan().totals().prunedByBatchAttrIdx());

                BlockDecision off = decisionOf(engine.searchSpans(TENANT, expr, TimeRange.ALL, 20,
                        new Mechanisms(true, true, false, true)), ref);
                assertEquals(SPANS_PER_BLOCK / BATCH_ROWS, off.batchesRead(), "ATTR_IDX's switch turns BATCH_ATTR_IDX off too");
                // Without it each batch's attribute column is read (writer version 3 reads only that column).
                assertTrue(5 * d.bytesRead() < off.bytesRead(), d + " against " + off);
                return;
            }
        }
    }

    @Test
    void rareValue_readsOnlyItsBatch() throws Exception {
        SpanRecord rare = spans.get(SPANS_PER_BLOCK * 2 + 777);
        String requestId = ((AnyValue.Str) rare.attributes().get(2).value()).value();
        Expr expr = QueryParser.parse("{ span.request.id = \"" + requestId + "\" }", Signal.SPANS);
        SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, TimeRange.ALL, 20, Mechanisms.ALL);
        assertEquals(List.of(rare), result.records());

        BlockDecision d = decisionOf(result, blocks.get(2));
        int batches = SPANS_PER_BLOCK / BATCH_ROWS;
        Sidecar batchIdx = BlockReader.readSidecar(store, blocks.get(2), BloomSidecar.BATCH_ATTR_IDX);
        AttributeHash pair = AttributeHash.ofString("span.request.id", requestId);
        int maybe = 0;
        for (int b = 0; b < batches; b++) {
            maybe += batchIdx.mayContain(pair, b) ? 1 : 0;
        }
        assertEquals(1, maybe, "with these seeds no other batch is a false positive");
        assertEquals(1, d.batchesRead(), d.toString());
        assertEquals(batches - 1, d.batchesSkipped(), d.toString());
        assertEquals(BATCH_ROWS, d.rowsScanned());
        assertTrue(result.plan().totals().rowsScanned() <= 2 * BATCH_ROWS, result.plan().totals().toString());
    }

    @Test
    void missingOrDamagedFile_answersTheScan_readsEveryBatch_andCountsFailedOpen() throws Exception {
        Files.delete(store.blockDir(blocks.get(0)).resolve(BloomSidecar.BATCH_ATTR_IDX));
        Path damaged = store.blockDir(blocks.get(1)).resolve(BloomSidecar.BATCH_ATTR_IDX);
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[bytes.length - 1] ^= 0x10;
        Files.write(damaged, bytes);
        Files.write(store.blockDir(blocks.get(2)).resolve(BloomSidecar.BATCH_ATTR_IDX), new byte[7]);

        String user = ((AnyValue.Str) spans.get(5).attributes().get(1).value()).value();
        String request = ((AnyValue.Str) spans.get(SPANS_PER_BLOCK + 5).attributes().get(2).value()).value();
        String deploy = ((AnyValue.Str) spans.get(2 * SPANS_PER_BLOCK + 5).resource().attributes().get(1).value()).value();
        for (String q : List.of("{ resource.service.name = \"cart\" }",
                "{ span.user.id = \"" + user + "\" || span.request.id = \"" + request + "\" || .deploy.id = \"" + deploy + "\" }",
                "{ span.user.id = \"" + user + "\" && name != \"op-99\" }")) {
            Expr expr = QueryParser.parse(q, Signal.SPANS);
            List<SpanRecord> expected = spans.stream().filter(s -> Values.matches(expr, Values.of(s))).toList();
            SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, TimeRange.ALL, 100_000, Mechanisms.ALL);
            assertEquals(new HashSet<>(expected), new HashSet<>(result.records()), q);
            List<String> failed = new ArrayList<>();
            for (int b = 0; b < 3; b++) {
                BlockDecision d = decisionOf(result, blocks.get(b));
                if (d.decidedBy() == BlockDecision.Step.ATTR_IDX) {
                    continue; // ATTR_IDX ruled the block out: its BATCH_ATTR_IDX was never needed
                }
                assertEquals(SPANS_PER_BLOCK / BATCH_ROWS, d.batchesRead(), q + " " + d);
                failed.add(d.failedOpen());
            }
            assertFalse(failed.isEmpty(), q + " reached no damaged block");
            for (String label : failed) {
                assertTrue(List.of("batch_attr_idx:missing", "batch_attr_idx:crc", "batch_attr_idx:short").contains(label),
                        q + " " + failed);
            }
            assertEquals(failed.size(), result.plan().totals().failedOpen().values().stream().mapToInt(Integer::intValue).sum());
        }
    }

    @Test
    void check_rulesOutOnlyWhereAnEqualityOnAnIndexedKeyDecides() throws Exception {
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ duration > 5ms }", Signal.SPANS)));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ }", Signal.SPANS)));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a = 1 || duration > 5ms }", Signal.SPANS)));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a != 1 }", Signal.SPANS)));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a =~ \"x.*\" }", Signal.SPANS)));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a !~ \"x|y\" }", Signal.SPANS)));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a =~ \"x|y\" || span.b =~ \"z+\" }", Signal.SPANS)));
        assertNotNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a =~ \"x|y\" }", Signal.SPANS)));
        assertNotNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.a = 1 && duration > 5ms }", Signal.SPANS)));

        // A block without doubles rules a fractional literal out of every batch; an integral one is an int.
        Sidecar noDoubles = BloomSidecar.decode(new BatchAttrIdxBuilder()
                .add(0, AttributeHash.ofLong("span.ratio", 1)).build().orElseThrow());
        BatchAttrIdxCheck fractional = BatchAttrIdxCheck.of(QueryParser.parse("{ span.ratio = 0.5 }", Signal.SPANS));
        assertTrue(fractional.ruledOut(noDoubles, 0).contains("holds no double"));
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.ratio = 1.0 }", Signal.SPANS)).ruledOut(noDoubles, 0));
        assertNotNull(BatchAttrIdxCheck.of(QueryParser.parse("{ span.ratio = 1.0 }", Signal.SPANS)).ruledOut(noDoubles, 1));
        // An alternation keeps a batch that may hold any one of its values.
        Sidecar xy = BloomSidecar.decode(new BatchAttrIdxBuilder()
                .add(0, AttributeHash.ofString("span.a", "x")).add(1, AttributeHash.ofString("span.a", "y"))
                .build().orElseThrow());
        BatchAttrIdxCheck alternation = BatchAttrIdxCheck.of(QueryParser.parse("{ span.a =~ \"w|y\" }", Signal.SPANS));
        assertNotNull(alternation.ruledOut(xy, 0));
        assertNull(alternation.ruledOut(xy, 1));
        // An unscoped attribute may be a resource, scope or span attribute: any of them keeps the batch.
        assertNull(BatchAttrIdxCheck.of(QueryParser.parse("{ .ratio = 1 }", Signal.SPANS)).ruledOut(noDoubles, 0));
    }

    private static boolean anyBatchMayContain(Sidecar batchIdx, AttributeHash pair) {
        for (int b = 0; b < SPANS_PER_BLOCK / BATCH_ROWS; b++) {
            if (batchIdx.mayContain(pair, b)) {
                return true;
            }
        }
        return false;
    }

    private static BlockDecision decisionOf(SearchResult<?> result, BlockRef ref) {
        return result.plan().blocks().stream().filter(d -> d.block().equals(ref.name().toString())).findFirst()
                .orElseThrow();
    }

    /** A random AND/OR of equalities on present and absent values of every scope and intrinsic, and a comparison. */
    private String randomQuery(SplittableRandom random) {
        int terms = 1 + random.nextInt(3);
        List<String> parts = new ArrayList<>();
        for (int t = 0; t < terms; t++) {
            parts.add(condition(random));
        }
        return switch (terms) {
            case 1 -> "{ " + parts.get(0) + " }";
            case 2 -> "{ " + parts.get(0) + (random.nextBoolean() ? " && " : " || ") + parts.get(1) + " }";
            default -> random.nextBoolean()
                    ? "{ (" + parts.get(0) + " || " + parts.get(1) + ") && " + parts.get(2) + " }"
                    : "{ " + parts.get(0) + " && " + parts.get(1) + " || " + parts.get(2) + " }";
        };
    }

    private String condition(SplittableRandom random) {
        SpanRecord s = spans.get(random.nextInt(spans.size()));
        boolean absent = random.nextInt(3) == 0;
        String user = absent ? "u-none-" + random.nextInt(1000) : ((AnyValue.Str) s.attributes().get(1).value()).value();
        String request = absent ? "r-none-" + random.nextInt(1000) : ((AnyValue.Str) s.attributes().get(2).value()).value();
        String deploy = absent ? "nope-" + random.nextInt(9)
                : ((AnyValue.Str) s.resource().attributes().get(1).value()).value();
        return switch (random.nextInt(15)) {
            case 0 -> "span.user.id = \"" + user + "\"";
            case 1 -> "span.request.id = \"" + request + "\"";
            case 2 -> "resource.deploy.id = \"" + deploy + "\"";
            case 3 -> ".deploy.id = \"" + deploy + "\"";
            case 4 -> ".user.id = \"" + user + "\"";
            case 5 -> "resource.service.name = \"" + (absent ? "billing" : SERVICES[random.nextInt(4)]) + "\"";
            case 6 -> "instrumentation.scope.kind = \"" + (absent ? "grpc" : "rpc") + "\"";
            case 7 -> "name = \"op-" + (absent ? 99 : random.nextInt(40)) + "\"";
            case 8 -> absent ? "status = ok" : "status = error";
            case 9 -> "span.retries = " + (absent ? "2.5" : random.nextInt(5) + ".0");
            case 10 -> "span.http.response.status_code = " + (absent ? 404 : 500);
            // Alternations ATTR_IDX probes value by value: present, absent, or both.
            case 11 -> "span.user.id =~ \"" + user + "|u-none-" + random.nextInt(1000) + "\"";
            case 12 -> ".deploy.id =~ \"" + deploy.replace(".", "\\\\.") + "|" + request + "\"";
            case 13 -> random.nextBoolean() ? "name =~ \"op-" + (absent ? 99 : random.nextInt(40)) + "|op-98\""
                    : "span.request.id !~ \"" + request + "\"";
            default -> "duration < " + (1 + random.nextInt(900)) + "ms";
        };
    }
}
