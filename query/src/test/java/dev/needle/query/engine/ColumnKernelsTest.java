package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.BlockWriter.Codec;
import dev.needle.blocks.write.BlockWriter.Options;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import dev.needle.query.ql.TraceField;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roaringbitmap.RoaringBitmap;

/**
 * The column kernels held to the data: for random expressions over real written batches, the rows
 * {@link SearchTarget#matchingRows} finds on the columns are exactly the rows that, decoded,
 * satisfy {@link Values#matches} and the time range. Keys and values are drawn from what each
 * batch holds, with absent ones, in every scope, with the values where equality is subtle: NaN,
 * -0.0, ints beside equal doubles, integers beyond 2^53, empty and non-ASCII strings, U+FFFD,
 * strings that look like numbers, nested values, rows without attributes.
 */
class ColumnKernelsTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final List<String> KEYS = List.of("http.route", "code", "ratio", "flag", "", "日本", "k\uFFFD",
            "nested", "dup");
    private static final List<String> ABSENT_KEYS = List.of("absent", "http.rout", "http.route.x", "\uD800");
    private static final List<String> STRINGS = List.of("", "GET", "/api/cart", "200", "日本語", "🚀 rocket", "Zoë",
            "a\u0000b", "\uFFFD", "?", "x".repeat(40));
    private static final List<String> EVENT_NAMES = List.of("exception", "retry", "", "日本語");
    private static final List<String> ABSENT_STRINGS = List.of("absent", "/api/car", "/api/cart/", "\uD800", "🚀");
    private static final List<Long> INTS = List.of(0L, 1L, -1L, 200L, 1L << 53, (1L << 53) + 1, Long.MIN_VALUE,
            Long.MAX_VALUE);
    private static final List<Double> DOUBLES = List.of(0.0, -0.0, Double.NaN, 200.0, 0.25, 1.5, 1e300,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, (double) (1L << 53), 0x1p63, -0x1p63);

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void matchingRows_randomExpressionsOverWrittenBatches_sameRowsAsDecodedRecords(Signal signal) throws IOException {
        SplittableRandom random = new SplittableRandom(41 + signal.ordinal());
        int expressions = 0;
        long matchedRows = 0;
        for (Codec codec : Codec.values()) {
            BlockRef ref = write(signal, random, 900, 128, codec);
            try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                for (int b = 0; b < reader.batchCount(); b++) {
                    int batch = b;
                    List<Object> records = decode(reader, b);
                    for (int q = 0; q < 60; q++) {
                        Expr expr = expression(signal, random, records, 3);
                        TimeRange range = random.nextInt(3) == 0 ? randomRange(random) : TimeRange.ALL;
                        RoaringBitmap expected = reference(signal, expr, range, records, Map.of());
                        assertEquals(expected, kernel(signal, expr, range, reader, b),
                                () -> codec + " batch " + batch + ": " + expr + " in " + range);
                        expressions++;
                        matchedRows += expected.getCardinality();
                    }
                }
            }
        }
        assertTrue(matchedRows > expressions, "the expressions should match rows, not only rule them out: "
                + matchedRows + " rows for " + expressions + " expressions");
    }

    @Test
    void matchingRows_subtleEqualities_asLiteralDefinesThem() throws IOException {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "cart")), 0, "");
        Scope scope = new Scope("s", "1", List.of(new KeyValue("ratio", AnyValue.of(0.0))), 0, "");
        List<List<KeyValue>> attributes = List.of(
                List.of(new KeyValue("v", AnyValue.of(Double.NaN))),
                List.of(new KeyValue("v", AnyValue.of(-0.0))),
                List.of(new KeyValue("v", AnyValue.of(200L))),
                List.of(new KeyValue("v", AnyValue.of(200.0))),
                List.of(new KeyValue("v", AnyValue.of((double) (1L << 53)))),
                List.of(new KeyValue("v", AnyValue.of((1L << 53) + 1))),
                List.of(new KeyValue("v", AnyValue.of(""))),
                List.of(new KeyValue("v", AnyValue.of("200"))),
                List.of(new KeyValue("v", AnyValue.of(true))),
                List.of(new KeyValue("v", new AnyValue.Array(List.of(AnyValue.of(200L))))),
                List.of(),
                List.of(new KeyValue("w", AnyValue.of(200L))));
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < attributes.size(); i++) {
            spans.add(span(i, resource, scope, "op", T0 + i, 0, 0, attributes.get(i)));
        }
        BlockRef ref = new BlockWriter(store, allocator).writeSpans(TENANT, spans).ref();
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            List<Object> records = decode(reader, 0);
            Object[][] cases = {
                {Op.EQ, new Literal.IntLit(0), 1}, // -0.0
                {Op.EQ, new Literal.DoubleLit(0.0), 1}, // -0.0; NaN equals nothing
                {Op.NE, new Literal.DoubleLit(0.0), 4}, // 200, 200.0, 2^53 and 2^53 + 1: NaN is not unequal either
                {Op.EQ, new Literal.IntLit(200), 2}, // the int and the integral double
                {Op.EQ, new Literal.DoubleLit(200.0), 2},
                {Op.EQ, new Literal.IntLit((1L << 53) + 1), 1}, // not the double 2^53, which it would round to
                {Op.GT, new Literal.DoubleLit((double) (1L << 53)), 1},
                {Op.EQ, new Literal.StringLit(""), 1},
                {Op.EQ, new Literal.StringLit("200"), 1},
                {Op.NE, new Literal.StringLit(""), 1},
                {Op.EQ, new Literal.BoolLit(true), 1},
                {Op.NE, new Literal.BoolLit(false), 1},
                {Op.LT, new Literal.IntLit(Long.MAX_VALUE), 5},
            };
            for (Object[] c : cases) {
                Expr expr = new Expr.Condition(new Attribute(Signal.SPANS, Attribute.Scope.RECORD, "v"), (Op) c[0],
                        (Literal) c[1]);
                RoaringBitmap expected = reference(Signal.SPANS, expr, TimeRange.ALL, records, Map.of());
                assertEquals(c[2], expected.getCardinality(), expr::toString);
                assertEquals(expected, kernel(Signal.SPANS, expr, TimeRange.ALL, reader, 0), expr::toString);
            }
            Expr unscoped = new Expr.Condition(new Attribute(Signal.SPANS, Attribute.Scope.UNSCOPED, "ratio"), Op.EQ,
                    new Literal.DoubleLit(-0.0));
            assertEquals(attributes.size(), kernel(Signal.SPANS, unscoped, TimeRange.ALL, reader, 0).getCardinality());
        }
    }

    /**
     * Bits flipped anywhere in a block's data.arrow: every search either reports the block as
     * failed (a partial answer naming it) or, whenever every row of the damaged block still
     * decodes, answers exactly what the decoded rows satisfy. It never throws.
     */
    @ParameterizedTest
    @EnumSource(Signal.class)
    void search_bitFlippedBlock_failedBlockOrSameRecordsAsDecoded(Signal signal) throws IOException {
        SplittableRandom random = new SplittableRandom(53 + signal.ordinal());
        BlockRef ref = write(signal, random, 300, 64, Codec.NONE);
        withoutChecksums(store.blockDir(ref));
        Path data = store.blockDir(ref).resolve(BlockLayout.DATA);
        byte[] original = Files.readAllBytes(data);
        List<Object> records = new ArrayList<>();
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            for (int b = 0; b < reader.batchCount(); b++) {
                records.addAll(decode(reader, b));
            }
        }
        int failed = 0;
        int compared = 0;
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 0, 1)) {
            for (int flip = 0; flip < 400; flip++) {
                byte[] flipped = original.clone();
                int at = random.nextInt(original.length);
                flipped[at] ^= (byte) (1 << random.nextInt(8));
                Files.write(data, flipped);
                List<Object> damaged = decodeAll(ref);
                for (int q = 0; q < 4; q++) {
                    Expr expr = expression(signal, random, records, 2);
                    SearchResult<?> result = signal == Signal.SPANS
                            ? engine.searchSpans(TENANT, expr, TimeRange.ALL, records.size(), Mechanisms.NONE)
                            : engine.searchLogs(TENANT, expr, TimeRange.ALL, records.size(), Mechanisms.NONE);
                    if (result.partial()) {
                        failed++;
                        assertTrue(result.problems().get(0).contains(ref.toString()), result.problems()::toString);
                    } else if (damaged != null) {
                        compared++;
                        List<Object> expected = new ArrayList<>();
                        // The engine judges a trace's fields on the trace, which is all of this block.
                        RoaringBitmap rows = reference(signal, expr, TimeRange.ALL, damaged, wholeTraces(damaged));
                        rows.forEach((int row) -> expected.add(damaged.get(row)));
                        assertEquals(new HashSet<>(expected), new HashSet<>(result.records()),
                                () -> "bit flipped at byte " + at + ": " + expr);
                    }
                }
            }
        }
        Files.write(data, original);
        assertTrue(failed > 100 && compared > 100, failed + " failed blocks, " + compared + " answers compared");
    }

    /**
     * Rewrites a block's meta.json as writer version 1 did, without batch checksums: the checksums
     * would refuse almost every flip before the kernels see it, and this test is about the kernels.
     */
    private static void withoutChecksums(Path blockDir) throws IOException {
        Path file = blockDir.resolve(BlockLayout.META);
        BlockMeta m = BlockMetaJson.read(Files.readAllBytes(file));
        Files.write(file, BlockMetaJson.write(new BlockMeta(BlockMeta.WRITER_VERSION_1, m.signal(), m.rows(),
                m.dataBytes(), m.minTimeUnixNano(), m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(),
                m.attrIdxBytes(), m.distinctAttributePairs(), m.createdUnixMillis(),
                m.batches().stream().map(b -> b.withCrc32c(null).withColumns(null)).toList())));
    }

    /** Every row of a block decoded, or null when some batch cannot be read or decoded. */
    private List<Object> decodeAll(BlockRef ref) {
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            List<Object> records = new ArrayList<>();
            for (int b = 0; b < reader.batchCount(); b++) {
                records.addAll(decode(reader, b));
            }
            return records;
        } catch (IOException e) {
            return null;
        }
    }

    /** The rows the engine's column kernels find in batch {@code b}, reading only the predicate columns. */
    private static RoaringBitmap kernel(Signal signal, Expr expr, TimeRange range, BlockReader reader, int b)
            throws IOException {
        SearchTarget<?> target = signal == Signal.SPANS ? SearchTarget.spans(expr, range) : SearchTarget.logs(expr, range);
        try (VectorSchemaRoot columns = reader.read(b, target.predicateColumns())) {
            return target.matchingRows(columns);
        }
    }

    /**
     * The rows whose decoded record satisfies {@code expr} through {@link Values} and lies in
     * {@code range}; a span's trace fields are judged on its trace in {@code traces}, or hold when it has none there.
     */
    private static RoaringBitmap reference(Signal signal, Expr expr, TimeRange range, List<Object> records,
                                           Map<Bytes, WholeTrace> traces) {
        RoaringBitmap rows = new RoaringBitmap();
        for (int row = 0; row < records.size(); row++) {
            boolean match = signal == Signal.SPANS
                    ? Values.matches(expr, Values.of((SpanRecord) records.get(row),
                            traces.get(((SpanRecord) records.get(row)).traceId())))
                            && range.contains(((SpanRecord) records.get(row)).startTimeUnixNano())
                    : Values.matches(expr, Values.of((LogRecord) records.get(row)))
                            && range.contains(((LogRecord) records.get(row)).eventTimeUnixNano());
            if (match) {
                rows.add(row);
            }
        }
        return rows;
    }

    /** The traces of {@code records} when they are spans; none for log records. */
    private static Map<Bytes, WholeTrace> wholeTraces(List<Object> records) {
        Map<Bytes, List<SpanRecord>> byTrace = new HashMap<>();
        for (Object r : records) {
            if (r instanceof SpanRecord s) {
                byTrace.computeIfAbsent(s.traceId(), id -> new ArrayList<>()).add(s);
            }
        }
        Map<Bytes, WholeTrace> traces = new HashMap<>();
        byTrace.forEach((id, spans) -> traces.put(id, new WholeTrace(spans)));
        return traces;
    }

    private static List<Object> decode(BlockReader reader, int b) throws IOException {
        List<Object> records = new ArrayList<>();
        try (VectorSchemaRoot root = reader.readAll(b)) {
            if (reader.block().signal() == Signal.SPANS) {
                SpanColumns columns = new SpanColumns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    records.add(columns.read(row));
                }
            } else {
                LogColumns columns = new LogColumns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    records.add(columns.read(row));
                }
            }
        }
        return records;
    }

    // ---------------------------------------------------------------- random expressions

    /** A random AND/OR tree of at most {@code depth} levels over conditions drawn from {@code records}. */
    private static Expr expression(Signal signal, SplittableRandom random, List<Object> records, int depth) {
        if (depth == 0 || random.nextInt(3) == 0) {
            return condition(signal, random, records);
        }
        List<Expr> terms = new ArrayList<>();
        for (int i = 2 + random.nextInt(2); i > 0; i--) {
            terms.add(expression(signal, random, records, depth - 1));
        }
        return random.nextBoolean() ? new Expr.And(terms) : new Expr.Or(terms);
    }

    private static Expr.Condition condition(Signal signal, SplittableRandom random, List<Object> records) {
        Attribute.Scope scope = Attribute.Scope.values()[random.nextInt(Attribute.Scope.values().length)];
        Op op = random.nextInt(3) == 0 ? Op.values()[random.nextInt(Op.values().length)] : random.nextBoolean() ? Op.EQ : Op.NE;
        if (scope == Attribute.Scope.TRACE || scope == Attribute.Scope.EVENT) {
            if (signal == Signal.SPANS) {
                return spanField(random, scope, (SpanRecord) records.get(random.nextInt(records.size())), op);
            }
            scope = Attribute.Scope.RECORD;
        }
        if (scope == Attribute.Scope.INTRINSIC) {
            List<Intrinsic> intrinsics = Intrinsic.of(signal);
            Intrinsic intrinsic = intrinsics.get(random.nextInt(intrinsics.size()));
            Object record = records.get(random.nextInt(records.size()));
            AnyValue held = signal == Signal.SPANS ? intrinsic.stored((SpanRecord) record) : intrinsic.stored((LogRecord) record);
            Literal literal = intrinsic.isString()
                    ? new Literal.StringLit(random.nextInt(4) == 0 ? pick(random, ABSENT_STRINGS) : ((AnyValue.Str) held).value())
                    : new Literal.IntLit(((AnyValue.Int) held).value() + (random.nextInt(4) == 0 ? random.nextInt(5) - 2 : 0));
            if (op.isRegex() && !intrinsic.isString()) {
                op = random.nextBoolean() ? Op.EQ : Op.NE;
            }
            return new Expr.Condition(new Attribute(signal, scope, intrinsic.word()), op,
                    op.isRegex() ? regexNear(random, ((Literal.StringLit) literal).value()) : literal);
        }
        List<KeyValue> held = held(signal, records.get(random.nextInt(records.size())), scope, random);
        KeyValue pair = held.isEmpty() || random.nextInt(5) == 0
                ? new KeyValue(random.nextInt(3) == 0 ? pick(random, ABSENT_KEYS) : pick(random, KEYS), value(random, 0))
                : held.get(random.nextInt(held.size()));
        Literal literal = literal(random, pair.value());
        if (literal instanceof Literal.BoolLit && op.isOrdering()) {
            op = random.nextBoolean() ? Op.EQ : Op.NE;
        }
        if (op.isRegex()) {
            // A regex near a held string; any other value is matched against a regex of the pools.
            literal = regexNear(random, pair.value() instanceof AnyValue.Str str ? str.value() : pick(random, STRINGS));
        }
        return new Expr.Condition(new Attribute(signal, scope, pair.key()), op, literal);
    }

    /**
     * A condition on an event name (held by the span, or not) or on a field of the span's trace,
     * which the kernel must let through for every row, as {@link Values#of(SpanRecord)} does.
     */
    private static Expr.Condition spanField(SplittableRandom random, Attribute.Scope scope, SpanRecord s, Op op) {
        String key = scope == Attribute.Scope.EVENT ? Attribute.EVENT_NAME : pick(random, TraceField.words());
        Attribute a = new Attribute(Signal.SPANS, scope, key);
        if (!a.isStringField()) {
            return new Expr.Condition(a, op.isRegex() ? Op.GT : op, new Literal.IntLit(random.nextLong(5_000)));
        }
        String held = random.nextInt(4) == 0 ? pick(random, ABSENT_STRINGS)
                : !s.events().isEmpty() && random.nextBoolean() ? pick(random, s.events()).name()
                : pick(random, EVENT_NAMES);
        return new Expr.Condition(a, op, op.isRegex() ? regexNear(random, held) : new Literal.StringLit(held));
    }

    /**
     * A regex around a held string: an alternation with it and an absent value, of absent values
     * only, the string alone, or a pattern that is no alternation (a prefix and {@code .*}).
     */
    private static Literal.Regex regexNear(SplittableRandom random, String held) {
        String absent = escape(pick(random, ABSENT_STRINGS));
        return new Literal.Regex(switch (random.nextInt(5)) {
            case 0 -> escape(held) + "|" + absent;
            case 1 -> absent + "|" + escape(pick(random, ABSENT_STRINGS));
            case 2 -> escape(held);
            case 3 -> escape(held.isEmpty() ? "" : held.substring(0, 1)) + ".*";
            default -> "[^/]*" + (random.nextBoolean() ? "" : "|" + escape(held));
        });
    }

    /** Escapes a value as Grafana's multi-value filter does: a backslash before {@code \\$^*{}[]'+?.()|}. */
    private static String escape(String value) {
        return value.replaceAll("[\\\\$^*{}\\[\\]'+?.()|]", "\\\\$0");
    }

    /** The attributes a record holds in a scope (for UNSCOPED, in any of the three). */
    private static List<KeyValue> held(Signal signal, Object record, Attribute.Scope scope, SplittableRandom random) {
        Resource resource = signal == Signal.SPANS ? ((SpanRecord) record).resource() : ((LogRecord) record).resource();
        Scope instrumentation = signal == Signal.SPANS ? ((SpanRecord) record).scope() : ((LogRecord) record).scope();
        List<KeyValue> own = signal == Signal.SPANS ? ((SpanRecord) record).attributes() : ((LogRecord) record).attributes();
        return switch (scope) {
            case RESOURCE -> resource.attributes();
            case SCOPE -> instrumentation.attributes();
            case RECORD -> own;
            default -> List.of(resource.attributes(), instrumentation.attributes(), own).get(random.nextInt(3));
        };
    }

    /**
     * A literal near a held value: of its own type, of the other numeric type where one exists
     * (an int for an integral double, a decimal for an int), or another value of the pools.
     */
    private static Literal literal(SplittableRandom random, AnyValue value) {
        int choice = random.nextInt(6);
        if (choice == 0) {
            return pooledLiteral(random);
        }
        if (value instanceof AnyValue.Str s) {
            return new Literal.StringLit(choice == 1 ? pick(random, ABSENT_STRINGS) : s.value());
        } else if (value instanceof AnyValue.Int i) {
            if (choice == 1 && Math.abs(i.value()) < (1L << 53)) {
                return new Literal.DoubleLit(i.value());
            }
            return new Literal.IntLit(choice == 2 ? i.value() + 1 : i.value());
        } else if (value instanceof AnyValue.Dbl d && Double.isFinite(d.value())) {
            double v = d.value();
            if (choice == 1 && v == Math.rint(v) && Math.abs(v) < 0x1p62) {
                return new Literal.IntLit((long) v);
            }
            return new Literal.DoubleLit(choice == 2 ? -v : v);
        } else if (value instanceof AnyValue.Bool b) {
            return new Literal.BoolLit(choice == 1 != b.value());
        }
        return pooledLiteral(random);
    }

    private static Literal pooledLiteral(SplittableRandom random) {
        return switch (random.nextInt(4)) {
            case 0 -> new Literal.StringLit(random.nextBoolean() ? pick(random, STRINGS) : pick(random, ABSENT_STRINGS));
            case 1 -> new Literal.IntLit(pick(random, INTS));
            case 2 -> {
                double d = pick(random, DOUBLES);
                yield new Literal.DoubleLit(Double.isFinite(d) ? d : 0.5);
            }
            default -> new Literal.BoolLit(random.nextBoolean());
        };
    }

    private static TimeRange randomRange(SplittableRandom random) {
        long from = T0 + random.nextLong(1_000_000);
        return new TimeRange(from, from + random.nextLong(1_000_000));
    }

    // ---------------------------------------------------------------- random records

    private BlockRef write(Signal signal, SplittableRandom random, int n, int batchRows, Codec codec) throws IOException {
        List<Resource> resources = new ArrayList<>();
        List<Scope> scopes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            resources.add(new Resource(attributes(random, i == 0 ? 0 : 1 + random.nextInt(3)), 0, ""));
            scopes.add(new Scope("scope" + i, "", attributes(random, i == 0 ? 0 : random.nextInt(3)), 0, ""));
        }
        BlockWriter writer = new BlockWriter(store, allocator, new Options(batchRows, codec));
        if (signal == Signal.SPANS) {
            List<SpanRecord> spans = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long start = T0 + random.nextLong(2_000_000);
                spans.add(span(i, pick(random, resources), pick(random, scopes),
                        random.nextInt(8) == 0 ? pick(random, STRINGS) : "op-" + random.nextInt(6), start,
                        random.nextInt(6), random.nextInt(3),
                        attributes(random, random.nextInt(5) == 0 ? 0 : random.nextInt(7))));
                spans.set(i, withDetails(spans.get(i), random.nextInt(4) == 0 ? 0 : random.nextLong(5_000),
                        random.nextInt(3) == 0 ? pick(random, STRINGS) : "", events(random)));
            }
            return writer.writeSpans(TENANT, spans).ref();
        }
        List<LogRecord> logs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long time = T0 + random.nextLong(2_000_000);
            logs.add(LogRecord.builder().resource(pick(random, resources)).scope(pick(random, scopes))
                    .timeUnixNano(random.nextInt(5) == 0 ? 0 : time).observedTimeUnixNano(time)
                    .severityNumber(random.nextInt(25)).body(AnyValue.of("body"))
                    .attributes(attributes(random, random.nextInt(5) == 0 ? 0 : random.nextInt(7))).build());
        }
        return writer.writeLogs(TENANT, logs).ref();
    }

    /** A span whose span id is {@code id} and whose trace id is one of a few. */
    private static SpanRecord span(int id, Resource resource, Scope scope, String name, long start, int kind, int status,
                                   List<KeyValue> attributes) {
        byte[] traceId = new byte[16];
        traceId[0] = 1;
        traceId[15] = (byte) (id % 7);
        byte[] spanId = {1, 0, 0, 0, 0, 0, (byte) (id >> 8), (byte) id};
        return SpanRecord.builder().resource(resource).scope(scope).traceId(Bytes.wrap(traceId))
                .spanId(Bytes.wrap(spanId)).flags(1).name(name).kind(kind).startTimeUnixNano(start)
                .endTimeUnixNano(start + 1000).attributes(attributes).statusCode(status).build();
    }

    private static SpanRecord withDetails(SpanRecord s, long duration, String statusMessage, List<SpanEvent> events) {
        return s.toBuilder().endTimeUnixNano(s.startTimeUnixNano() + duration).droppedAttributesCount(0)
                .events(events).droppedEventsCount(0).links(List.of()).droppedLinksCount(0)
                .statusMessage(statusMessage).build();
    }

    /** None to two events, named from a small pool (the empty name included). */
    private static List<SpanEvent> events(SplittableRandom random) {
        List<SpanEvent> events = new ArrayList<>();
        for (int n = random.nextInt(3); n > 0; n--) {
            events.add(new SpanEvent(T0, pick(random, EVENT_NAMES), List.of(), 0));
        }
        return events;
    }

    /** {@code n} attributes with keys from the pool (a key may repeat in one record) and values of every type. */
    private static List<KeyValue> attributes(SplittableRandom random, int n) {
        List<KeyValue> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new KeyValue(pick(random, KEYS), value(random, 1)));
        }
        return out;
    }

    private static AnyValue value(SplittableRandom random, int depth) {
        return switch (random.nextInt(depth > 0 ? 9 : 6)) {
            case 0, 1 -> AnyValue.of(pick(random, STRINGS));
            case 2 -> AnyValue.of(random.nextInt(3) == 0 ? (long) random.nextInt(4) : pick(random, INTS));
            case 3 -> AnyValue.of(random.nextInt(3) == 0 ? (double) random.nextInt(4) : pick(random, DOUBLES));
            case 4 -> AnyValue.of(random.nextBoolean());
            case 5 -> random.nextBoolean() ? AnyValue.Empty.INSTANCE : new AnyValue.Blob(Bytes.wrap(new byte[] {'2', '0', '0'}));
            case 6 -> new AnyValue.Array(List.of(value(random, depth - 1), value(random, depth - 1)));
            case 7 -> new AnyValue.KvList(List.of(new KeyValue(pick(random, KEYS), value(random, depth - 1))));
            default -> AnyValue.of(pick(random, STRINGS));
        };
    }

    private static <T> T pick(SplittableRandom random, List<T> list) {
        return list.get(random.nextInt(list.size()));
    }
}
