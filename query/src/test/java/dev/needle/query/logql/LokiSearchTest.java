package dev.needle.query.logql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pruned equals scanned for LogQL: random log queries (label matchers on resource keys that Loki
 * renames, typed values, the discovered service name, structured-metadata filters, trace ids, line
 * filters, parsers of JSON and logfmt bodies and the filters after them, formatting, drop and keep,
 * both directions, limits) answer exactly what judging every record finds, with every mechanism on
 * and with every mechanism off; and the pruning is not idle.
 */
class LokiSearchTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final long BLOCK_NANOS = 60_000_000_000L;
    private static final int BLOCKS = 6;
    private static final String[] SELECTORS = {
        "service_name=\"checkout\"", "service_name=\"cart\"", "service_name=\"billing\"", "service_name=\"legacy\"",
        "service_name=\"unknown_service\"", "service_name=~\"c.*\"", "service_name!=\"cart\"", "k8s_pod_name=\"cart-1\"",
        "k8s_pod_name=\"cart-7\"", "shard=\"2\"", "shard=\"02\"", "ratio=\"0.5\"", "ratio=\"2\"", "canary=\"true\"",
        "deployment_environment=\"prod\"", "deployment_environment=~\"prod|dev\"", "nope=\"x\"", "nope=\"\"",
        "app=\"legacy\"",
    };
    private static final String[] STAGES = {
        "|= \"timeout\"", "!= \"timeout\"", "|~ \"user-1[0-9]\"", "!~ \"^GET\"", "|= \"\"",
        "| http_method=\"GET\"", "| http_method!=\"GET\"", "| http_method=~\"P.*\"", "| user_id=\"u7\"",
        "| attempt=\"2\"", "| attempt=\"2.5\"", "| detected_level=\"error\"", "| severity_number=\"17\"",
        "| scope_name=\"io.test\"", "| scope_kind=\"http\"", "| service_name=\"cart\"", "| ctx=\"x\"", "| ctx_a=\"1\"",
        "| k8s_pod_name=\"checkout-0\"", "| http_method=\"GET\" or user_id=\"u3\"",
        "| label_format t=`{{ contains \"timeout\" __line__ }}` | t=\"true\" or http_method=\"POST\"",
        "| label_format http_method=`{{ contains \"GET\" __line__ }}` | http_method=\"true\"",
        // After a parser, label_format, drop or keep a label may hold what no attribute does: nothing may prune on it.
        "| json | level=\"error\"", "| logfmt | level=\"warn\"", "| json | user_id=\"u3\"", "| logfmt | user_id_extracted=\"u3\"",
        "| json level, user=\"user.id\" | user=\"u4\"", "| logfmt --strict | __error__=\"\"", "| json | __error__!=\"\"",
        "| label_format http_method=\"PUT\" | http_method=\"PUT\"", "| drop http_method | http_method=\"\"",
        "| keep user_id | user_id=\"u2\"", "| json | line_format \"lvl={{.level}}\" |= \"lvl=warn\"",
        "| pattern \"<verb> <path> <_>\" | verb=\"GET\"", "| regexp \"user-(?P<n>[0-9]+)\" | n > 15",
        "| logfmt | attempt >= 2", "| json | level=\"error\" or http_method=\"GET\" | decolorize",
    };

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;
    private QueryEngine engine;
    private LokiSearch search;
    private final List<LogRecord> logs = new ArrayList<>();
    private final List<Bytes> traces = new ArrayList<>();
    private final List<BlockRef> blocks = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        SplittableRandom random = new SplittableRandom(41);
        List<Resource> resources = List.of(
                resource(KeyValue.of("service.name", "checkout"), KeyValue.of("k8s.pod.name", "checkout-0"),
                        KeyValue.of("shard", 2), KeyValue.of("deployment.environment", "prod")),
                resource(KeyValue.of("service.name", "cart"), KeyValue.of("k8s.pod.name", "cart-1"),
                        new KeyValue("ratio", AnyValue.of(0.5)), new KeyValue("canary", AnyValue.of(true))),
                resource(KeyValue.of("service.name", "cart"), KeyValue.of("k8s-pod-name", "cart-7"),
                        new KeyValue("ratio", AnyValue.of(2.0)), KeyValue.of("deployment_environment", "dev")),
                // Loki discovers the service from app; and no service at all.
                resource(KeyValue.of("app", "legacy"), KeyValue.of("shard", "02")),
                resource(new KeyValue("labels", new AnyValue.KvList(List.of(KeyValue.of("team", "a"))))));
        Scope scope = new Scope("io.test", "1.0", List.of(KeyValue.of("scope.kind", "http")), 0, "");
        BlockWriter writer = new BlockWriter(store, allocator, 16);
        for (int b = 0; b < BLOCKS; b++) {
            List<LogRecord> block = new ArrayList<>();
            // Each block holds a few of the resources, so that label matchers can rule blocks out.
            int first = b % resources.size();
            for (int i = 0; i < 60; i++) {
                Resource resource = resources.get((first + random.nextInt(2)) % resources.size());
                block.add(log(random, resource, scope, T0 + b * BLOCK_NANOS + i * 1_000_000_000L + random.nextInt(1000)));
            }
            logs.addAll(block);
            blocks.add(writer.writeLogs(TENANT, block).ref());
        }
        // A block without its TAGS: the keys of the range then come from reading it.
        Files.delete(store.blockDir(blocks.get(2)).resolve(BlockTags.FILE));
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
        search = new LokiSearch(engine);
    }

    @AfterEach
    void tearDown() {
        engine.close();
        allocator.close();
    }

    @Test
    void run_randomQueries_prunedEqualsEveryMechanismOffEqualsJudgingEveryRecord() throws Exception {
        SplittableRandom random = new SplittableRandom(43);
        int answered = 0;
        for (int q = 0; q < 150; q++) {
            StringBuilder text = new StringBuilder("{").append(SELECTORS[random.nextInt(SELECTORS.length)]);
            if (random.nextInt(3) == 0) {
                text.append(", ").append(SELECTORS[random.nextInt(SELECTORS.length)]);
            }
            text.append('}');
            for (int s = random.nextInt(3); s > 0; s--) {
                text.append(' ').append(STAGES[random.nextInt(STAGES.length)]);
            }
            if (random.nextInt(5) == 0) {
                text.append(" | trace_id=\"").append(traces.get(random.nextInt(traces.size())).hex()).append('"');
            }
            LogQl.LogQuery query;
            try {
                query = (LogQl.LogQuery) LogQlParser.parse(text.toString());
            } catch (LogQlParseException e) {
                continue; // a selector of only empty-compatible matchers, which Loki refuses too
            }
            long from = T0 + random.nextLong(BLOCKS * BLOCK_NANOS / 2);
            TimeRange range = new TimeRange(from, from + random.nextLong(BLOCKS * BLOCK_NANOS));
            int limit = 1 + random.nextInt(random.nextBoolean() ? 10 : 400);
            boolean forward = random.nextBoolean();
            List<LokiEntry> expected = expected(query, range, limit, forward);
            LokiSearch.Result pruned = search.run(TENANT, query, range, limit, forward, Mechanisms.ALL);
            LokiSearch.Result scanned = search.run(TENANT, query, range, limit, forward, Mechanisms.NONE);
            assertEquals(expected, pruned.entries(), () -> query + " " + range + " limit " + limit + " forward " + forward);
            assertEquals(expected, scanned.entries(), () -> query + " every mechanism off");
            assertTrue(pruned.problems().isEmpty(), pruned.problems()::toString);
            answered += expected.isEmpty() ? 0 : 1;
        }
        assertTrue(answered >= 40, "too few queries find anything to compare: " + answered);
    }

    @Test
    void run_labelEquality_prunesWithAttrIdx() throws Exception {
        LogQl.LogQuery query = (LogQl.LogQuery) LogQlParser.parse("{deployment_environment=\"dev\"}");
        LokiSearch.Result result = search.run(TENANT, query, new TimeRange(T0, T0 + BLOCKS * BLOCK_NANOS), 1000, false,
                Mechanisms.ALL);
        assertEquals(expected(query, TimeRange.ALL, 1000, false), result.entries());
        assertTrue(sum(result.plans(), t -> t.prunedByAttrIdx()) > 0, result.plans()::toString);
    }

    @Test
    void run_traceIdFilter_prunesWithTraceIdx() throws Exception {
        Bytes trace = traces.get(3);
        LogQl.LogQuery query = (LogQl.LogQuery) LogQlParser.parse("{service_name=~\".+\"} | trace_id=\"" + trace.hex() + "\"");
        LokiSearch.Result result = search.run(TENANT, query, new TimeRange(T0, T0 + BLOCKS * BLOCK_NANOS), 1000, false,
                Mechanisms.ALL);
        assertEquals(expected(query, TimeRange.ALL, 1000, false), result.entries());
        assertTrue(!result.entries().isEmpty());
        assertTrue(sum(result.plans(), t -> t.prunedByTraceIdx()) > 0, result.plans()::toString);
    }

    @Test
    void run_labelNoBlockHolds_readsNothing() throws Exception {
        LogQl.LogQuery query = (LogQl.LogQuery) LogQlParser.parse("{region=\"eu\"}");
        LokiSearch.Result result = search.run(TENANT, query, TimeRange.ALL, 10, false, Mechanisms.ALL);
        assertEquals(List.of(), result.entries());
        assertEquals(List.of(), result.plans());
    }

    private List<LokiEntry> expected(LogQl.LogQuery query, TimeRange range, int limit, boolean forward) {
        Comparator<LokiEntry> byTime = Comparator.comparingLong(LokiEntry::timeUnixNano);
        List<LokiEntry> matching = new ArrayList<>();
        for (LogRecord r : logs) {
            LokiEntry e = query.apply(LokiEntry.of(r));
            if (range.contains(r.eventTimeUnixNano()) && e != null) {
                matching.add(e);
            }
        }
        return matching.stream().sorted(forward ? byTime : byTime.reversed()).limit(limit).toList();
    }

    private static long sum(List<Explain> plans, java.util.function.ToLongFunction<Explain.Totals> count) {
        return plans.stream().mapToLong(p -> count.applyAsLong(p.totals())).sum();
    }

    private static Resource resource(KeyValue... attributes) {
        return new Resource(List.of(attributes), 0, "");
    }

    private LogRecord log(SplittableRandom random, Resource resource, Scope scope, long time) {
        Bytes trace = Bytes.EMPTY;
        Bytes span = Bytes.EMPTY;
        if (random.nextInt(3) != 0) {
            byte[] id = new byte[16];
            random.nextBytes(id);
            trace = Bytes.wrap(id);
            traces.add(trace);
            byte[] s = new byte[8];
            random.nextBytes(s);
            span = Bytes.wrap(s);
        }
        List<KeyValue> attributes = new ArrayList<>();
        attributes.add(KeyValue.of("http.method", random.nextBoolean() ? "GET" : "POST"));
        attributes.add(KeyValue.of("user.id", "u" + random.nextInt(10)));
        attributes.add(random.nextBoolean() ? KeyValue.of("attempt", random.nextInt(4))
                : new KeyValue("attempt", AnyValue.of(random.nextBoolean() ? 2.5 : 2.0)));
        if (random.nextInt(4) == 0) {
            attributes.add(new KeyValue("ctx", new AnyValue.KvList(List.of(KeyValue.of("a", 1)))));
        }
        String level = random.nextBoolean() ? "error" : "warn";
        AnyValue body = switch (random.nextInt(7)) {
            case 0 -> AnyValue.of(random.nextInt(100));
            case 1 -> AnyValue.of("{\"level\":\"" + level + "\",\"user\":{\"id\":\"u" + random.nextInt(10) + "\"}}");
            case 2 -> AnyValue.of("level=" + level + " user_id=u" + random.nextInt(10) + (random.nextBoolean() ? "" : " bad=a=b"));
            default -> AnyValue.of((random.nextBoolean() ? "GET /cart" : "POST /pay") + " user-" + random.nextInt(30)
                    + (random.nextInt(4) == 0 ? " timeout" : ""));
        };
        return LogRecord.builder().resource(resource).scope(scope).timeUnixNano(time).observedTimeUnixNano(time + 5)
                .severityNumber(random.nextInt(25)).severityText(random.nextBoolean() ? "" : "INFO").body(body)
                .attributes(attributes).traceId(trace).spanId(span).build();
    }
}
