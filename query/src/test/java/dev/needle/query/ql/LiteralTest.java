package dev.needle.query.ql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.ql.Expr.Condition;
import dev.needle.query.ql.Literal.BoolLit;
import dev.needle.query.ql.Literal.DoubleLit;
import dev.needle.query.ql.Literal.IntLit;
import dev.needle.query.ql.Literal.StringLit;
import dev.needle.sidecar.AttributeHash;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LiteralTest {

    private static final long TWO_53 = 1L << 53;
    private static final AnyValue NAN = new AnyValue.Dbl(Double.NaN);

    private static boolean eq(Literal l, AnyValue v) {
        return l.matches(Op.EQ, v);
    }

    @Test
    void matches_intLiteralEqualsIntsAndEqualDoubles() {
        IntLit l = new IntLit(200);
        assertTrue(eq(l, new AnyValue.Int(200)));
        assertTrue(eq(l, new AnyValue.Dbl(200.0)));
        assertFalse(eq(l, new AnyValue.Dbl(200.5)));
        assertFalse(eq(l, new AnyValue.Int(201)));
        assertTrue(eq(new IntLit(0), new AnyValue.Dbl(-0.0)));
    }

    @Test
    void matches_decimalLiteralEqualsDoublesAndIntegralInts() {
        assertTrue(eq(new DoubleLit(200.0), new AnyValue.Int(200)));
        assertTrue(eq(new DoubleLit(200.0), new AnyValue.Dbl(200.0)));
        assertTrue(eq(new DoubleLit(1.5), new AnyValue.Dbl(1.5)));
        assertFalse(eq(new DoubleLit(1.5), new AnyValue.Int(1)));
        assertFalse(eq(new DoubleLit(1.5), new AnyValue.Int(2)));
        assertTrue(eq(new DoubleLit(-0.0), new AnyValue.Dbl(0.0)));
        assertTrue(eq(new DoubleLit(0.0), new AnyValue.Dbl(-0.0)));
        assertTrue(eq(new DoubleLit(-0.0), new AnyValue.Int(0)));
    }

    @Test
    void matches_nanSatisfiesNothing() {
        for (Op op : Op.values()) {
            assertFalse(new IntLit(0).matches(op, NAN), op.symbol());
            assertFalse(new DoubleLit(1.5).matches(op, NAN), op.symbol());
        }
    }

    @Test
    void matches_isExactBeyondTwoTo53() {
        // (double) (2^53 + 1) == 2^53: a comparison through double would call these equal.
        AnyValue twoTo53 = new AnyValue.Dbl((double) TWO_53);
        IntLit above = new IntLit(TWO_53 + 1);
        assertFalse(above.matches(Op.EQ, twoTo53));
        assertTrue(above.matches(Op.NE, twoTo53));
        assertTrue(above.matches(Op.LT, twoTo53));
        assertFalse(above.matches(Op.GE, twoTo53));
        assertTrue(new IntLit(TWO_53).matches(Op.EQ, twoTo53));
        DoubleLit d = new DoubleLit((double) TWO_53);
        assertFalse(d.matches(Op.EQ, new AnyValue.Int(TWO_53 + 1)));
        assertTrue(d.matches(Op.GT, new AnyValue.Int(TWO_53 + 1)));
        assertTrue(d.matches(Op.LT, new AnyValue.Int(TWO_53 - 1)));
        assertTrue(d.matches(Op.EQ, new AnyValue.Int(TWO_53)));
    }

    @Test
    void matches_int64Extremes() {
        AnyValue twoTo63 = new AnyValue.Dbl(0x1p63);
        assertFalse(new IntLit(Long.MAX_VALUE).matches(Op.EQ, twoTo63));
        assertTrue(new IntLit(Long.MAX_VALUE).matches(Op.GT, twoTo63));
        assertTrue(new IntLit(Long.MIN_VALUE).matches(Op.EQ, new AnyValue.Dbl(-0x1p63)));
        assertTrue(new IntLit(Long.MIN_VALUE).matches(Op.LT, new AnyValue.Dbl(Double.NEGATIVE_INFINITY)));
        assertTrue(new IntLit(Long.MAX_VALUE).matches(Op.GT, new AnyValue.Dbl(Double.POSITIVE_INFINITY)));
        assertTrue(new DoubleLit(1e19).matches(Op.LT, new AnyValue.Int(Long.MAX_VALUE)));
        assertTrue(new DoubleLit(-1e19).matches(Op.GT, new AnyValue.Int(Long.MIN_VALUE)));
        assertFalse(new DoubleLit(0x1p63).matches(Op.EQ, new AnyValue.Int(Long.MAX_VALUE)));
        assertTrue(new DoubleLit(-0x1p63).matches(Op.EQ, new AnyValue.Int(Long.MIN_VALUE)));
        assertTrue(new DoubleLit(-0x1p63).matches(Op.GT, new AnyValue.Int(Long.MIN_VALUE + 1)));
    }

    @Test
    void matches_typesDoNotCross() {
        List<AnyValue> others = List.of(new AnyValue.Str("200"), new AnyValue.Bool(true), AnyValue.Empty.INSTANCE,
                new AnyValue.Blob(Bytes.wrap(new byte[] {1})), new AnyValue.Array(List.of(new AnyValue.Int(200))),
                new AnyValue.KvList(List.of(KeyValue.of("k", 200))));
        for (Op op : Op.values()) {
            for (AnyValue v : others) {
                assertFalse(new IntLit(200).matches(op, v), op + " " + v);
                assertFalse(new DoubleLit(200.0).matches(op, v), op + " " + v);
            }
            assertFalse(new StringLit("200").matches(op, new AnyValue.Int(200)));
            assertFalse(new StringLit("true").matches(op, new AnyValue.Bool(true)));
            assertFalse(new BoolLit(true).matches(op, new AnyValue.Str("true")));
            assertFalse(new BoolLit(true).matches(op, new AnyValue.Int(1)));
        }
    }

    @Test
    void matches_notEqualNeedsAComparableValue() {
        assertTrue(new IntLit(200).matches(Op.NE, new AnyValue.Int(201)));
        assertFalse(new IntLit(200).matches(Op.NE, new AnyValue.Str("abc")));
        assertTrue(new BoolLit(true).matches(Op.NE, new AnyValue.Bool(false)));
        assertFalse(new BoolLit(true).matches(Op.NE, new AnyValue.Bool(true)));
        Condition c = new Condition(new Attribute(Signal.SPANS, Attribute.Scope.RECORD, "x"), Op.NE, new IntLit(1));
        assertFalse(c.matches(null), "a missing attribute satisfies no condition");
        assertTrue(c.matches(new AnyValue.Int(2)));
    }

    @Test
    void matches_boolsAreNotOrdered() {
        for (Op op : List.of(Op.LT, Op.LE, Op.GT, Op.GE)) {
            assertFalse(new BoolLit(true).matches(op, new AnyValue.Bool(true)));
            assertFalse(new BoolLit(false).matches(op, new AnyValue.Bool(true)));
        }
        assertTrue(new BoolLit(false).matches(Op.EQ, new AnyValue.Bool(false)));
    }

    @Test
    void matches_stringsInCodePointOrder() {
        StringLit b = new StringLit("b");
        assertTrue(b.matches(Op.LT, new AnyValue.Str("a")));
        assertTrue(b.matches(Op.LT, new AnyValue.Str("aaaa")));
        assertTrue(b.matches(Op.GT, new AnyValue.Str("ba")));
        assertTrue(b.matches(Op.LE, new AnyValue.Str("b")));
        assertTrue(b.matches(Op.GT, new AnyValue.Str("é")));
        assertTrue(new StringLit("").matches(Op.GE, new AnyValue.Str("")));
        // U+FFFF < U+1F600 by code point and UTF-8 bytes, though not by String.compareTo.
        StringLit emoji = new StringLit("\uD83D\uDE00");
        assertTrue(emoji.matches(Op.LT, new AnyValue.Str("\uFFFF")));
        assertTrue("\uFFFF".compareTo("\uD83D\uDE00") > 0);
    }

    @Test
    void comparisons_mixIntsAndDoublesExactly() {
        assertTrue(new IntLit(2).matches(Op.GT, new AnyValue.Dbl(2.5)));
        assertTrue(new IntLit(2).matches(Op.LT, new AnyValue.Dbl(1.999)));
        assertTrue(new IntLit(-2).matches(Op.LT, new AnyValue.Dbl(-2.5)));
        assertTrue(new DoubleLit(2.5).matches(Op.LT, new AnyValue.Int(2)));
        assertTrue(new DoubleLit(2.5).matches(Op.GE, new AnyValue.Int(3)));
        assertTrue(new DoubleLit(-0.5).matches(Op.LE, new AnyValue.Int(-1)));
        assertTrue(new DoubleLit(-0.0).matches(Op.GE, new AnyValue.Int(0)));
        assertTrue(new DoubleLit(-0.0).matches(Op.LE, new AnyValue.Dbl(0.0)));
    }

    @Test
    void matchesOnlyDoubles_forDecimalsNoIntCanEqual() {
        assertTrue(new DoubleLit(1.5).matchesOnlyDoubles());
        assertTrue(new DoubleLit(1e19).matchesOnlyDoubles());
        assertTrue(new DoubleLit(0x1p63).matchesOnlyDoubles());
        assertFalse(new DoubleLit(-0x1p63).matchesOnlyDoubles());
        assertFalse(new DoubleLit(200.0).matchesOnlyDoubles());
        assertFalse(new DoubleLit(-0.0).matchesOnlyDoubles());
        assertFalse(new IntLit(1).matchesOnlyDoubles());
        assertFalse(new StringLit("1.5").matchesOnlyDoubles());
        assertFalse(new BoolLit(true).matchesOnlyDoubles());
    }

    /**
     * The sidecar and the scan agree: over values and literals drawn from the same tricky numbers,
     * a literal equals a value exactly when the literal's probe key is the key IndexedPairs indexed
     * the value under. One direction is the one rule (never skip a match); the other shows that
     * the index does not conflate values the scan tells apart.
     */
    @Test
    void hash_isTheIndexedKeyOfExactlyTheEqualValues() {
        Random random = new Random(20261129L);
        for (int round = 0; round < 20_000; round++) {
            AnyValue value = randomValue(random);
            Literal literal = randomLiteral(random);
            AttributeHash indexed = indexedHash(value);
            boolean equal = eq(literal, value);
            boolean sameKey = literal.hash("span.k").equals(indexed);
            assertEquals(equal, sameKey, literal + " vs " + value);
            if (equal && literal.matchesOnlyDoubles()) {
                assertTrue(value instanceof AnyValue.Dbl, literal + " matched " + value);
            }
        }
    }

    private static final double[] TRICKY = {0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 200.0, 0.1, 0x1p53, 0x1p53 + 2, 0x1p63,
        -0x1p63, 0x1p64, 1e19, -1e19, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 9.007199254740993E15};
    private static final long[] TRICKY_LONGS = {0, 1, -1, 200, 1L << 53, (1L << 53) + 1, (1L << 53) - 1,
        Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, 1L << 62};

    private static AnyValue randomValue(Random r) {
        return switch (r.nextInt(6)) {
            case 0 -> new AnyValue.Int(randomLong(r));
            case 1 -> new AnyValue.Dbl(randomDouble(r));
            case 2 -> new AnyValue.Str(r.nextBoolean() ? "200" : Long.toString(randomLong(r)));
            case 3 -> new AnyValue.Bool(r.nextBoolean());
            case 4 -> NAN;
            default -> new AnyValue.Dbl(Double.POSITIVE_INFINITY * (r.nextBoolean() ? 1 : -1));
        };
    }

    private static Literal randomLiteral(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> new IntLit(randomLong(r));
            case 1 -> {
                double d = randomDouble(r);
                yield new DoubleLit(Double.isFinite(d) ? d : 0.0);
            }
            case 2 -> new StringLit(r.nextBoolean() ? "200" : Long.toString(randomLong(r)));
            default -> new BoolLit(r.nextBoolean());
        };
    }

    private static long randomLong(Random r) {
        long base = TRICKY_LONGS[r.nextInt(TRICKY_LONGS.length)];
        return r.nextInt(4) == 0 ? base + r.nextInt(5) - 2 : base;
    }

    private static double randomDouble(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> (double) randomLong(r);
            case 1 -> Math.nextUp(TRICKY[r.nextInt(TRICKY.length)]);
            default -> TRICKY[r.nextInt(TRICKY.length)];
        };
    }

    /** The hash that IndexedPairs gives span attribute k with this value; null when it indexes nothing. */
    private static AttributeHash indexedHash(AnyValue value) {
        return IndexedHashes.of(span(List.of(), List.of(new KeyValue("k", value)))).get("span.k");
    }

    @Test
    void regex_matchesWholeStringsOnly_asTempoAnchorsThem() {
        Literal.Regex cart = new Literal.Regex("cart|pay.*");
        assertTrue(cart.matches(Op.MATCH, new AnyValue.Str("cart")));
        assertTrue(cart.matches(Op.MATCH, new AnyValue.Str("payment")));
        assertFalse(cart.matches(Op.MATCH, new AnyValue.Str("my-cart")), "anchored at the start");
        assertFalse(cart.matches(Op.MATCH, new AnyValue.Str("carts")), "anchored at the end");
        assertTrue(cart.matches(Op.NOT_MATCH, new AnyValue.Str("carts")));
        assertFalse(cart.matches(Op.NOT_MATCH, new AnyValue.Str("cart")));
        // Tempo compiles ^(?s:re)$: a dot crosses newlines.
        assertTrue(new Literal.Regex("a.b").matches(Op.MATCH, new AnyValue.Str("a\nb")));
        for (Op op : List.of(Op.MATCH, Op.NOT_MATCH)) {
            for (AnyValue v : List.of(new AnyValue.Int(1), new AnyValue.Bool(true), new AnyValue.Dbl(1.0),
                    AnyValue.Empty.INSTANCE, new AnyValue.Array(List.of(new AnyValue.Str("cart"))))) {
                assertFalse(new Literal.Regex(".*").matches(op, v), op + " " + v);
            }
        }
        assertEquals(new Literal.Regex("a|b"), new Literal.Regex("a|b"));
        assertEquals("\"a\\\\.b\"", new Literal.Regex("a\\.b").toString());
    }

    @Test
    void regex_alternatives_onlyForPlainLiteralAlternations() {
        assertEquals(List.of("cart", "checkout"), new Literal.Regex("cart|checkout").alternatives().orElseThrow());
        assertEquals(List.of("a", ""), new Literal.Regex("a|").alternatives().orElseThrow());
        assertEquals(List.of("GET /api"), new Literal.Regex("GET /api").alternatives().orElseThrow());
        // What Grafana's multi-value filter sends: $^*{}[]'+?.()| and \ escaped with a backslash.
        assertEquals(List.of("v1.2", "a|b", "(x)", "it's", "c:\\d", "$^*{}[]+?"),
                new Literal.Regex("v1\\.2|a\\|b|\\(x\\)|it\\'s|c:\\\\d|\\$\\^\\*\\{\\}\\[\\]\\+\\?")
                        .alternatives().orElseThrow());
        for (String any : List.of(".*", "a.b", "a|b+", "(a|b)", "[ab]", "a{2}", "^a", "a$", "\\d", "\\x41", "(?i)a",
                "\\Qa\\E", "a\\b", "\\1")) {
            assertTrue(new Literal.Regex(any).alternatives().isEmpty(), any);
        }
        // Each alternative is exactly the set of strings the regex matches.
        for (String pattern : List.of("a|b\\.c|", "x\\|y|\\\\", "\u65e5\u672c|\uD83D\uDE80")) {
            Literal.Regex regex = new Literal.Regex(pattern);
            for (String alternative : regex.alternatives().orElseThrow()) {
                assertTrue(regex.matchesString(Op.MATCH, alternative), pattern + " " + alternative);
            }
        }
    }

    @Test
    void equalities_areWhatAttrIdxMayLookUp() {
        Attribute a = new Attribute(Signal.SPANS, Attribute.Scope.RECORD, "k");
        assertEquals(List.of(new StringLit("x")), new Condition(a, Op.EQ, new StringLit("x")).equalities());
        assertEquals(List.of(new StringLit("x"), new StringLit("y.z")),
                new Condition(a, Op.MATCH, new Literal.Regex("x|y\\.z")).equalities());
        assertEquals(List.of(), new Condition(a, Op.MATCH, new Literal.Regex("x.*")).equalities());
        assertEquals(List.of(), new Condition(a, Op.NOT_MATCH, new Literal.Regex("x|y")).equalities());
        assertEquals(List.of(), new Condition(a, Op.NE, new StringLit("x")).equalities());
        assertEquals(List.of(), new Condition(a, Op.GE, new IntLit(1)).equalities());
    }

    /** Every intrinsic and scope names keys that IndexedPairs really writes. */
    @Test
    void indexedKeys_areWrittenByIndexedPairs() {
        List<KeyValue> attrs = List.of(KeyValue.of("foo", "x"));
        Map<String, AttributeHash> spanPairs = IndexedHashes.of(span(attrs, attrs));
        Resource resource = new Resource(attrs, 0, "");
        Map<String, AttributeHash> logPairs = IndexedHashes.of(LogRecord.builder().resource(resource)
                .scope(new Scope("", "", attrs, 0, "")).timeUnixNano(1).observedTimeUnixNano(1).severityNumber(9)
                .attributes(attrs).build());
        for (Signal signal : EnumSet.allOf(Signal.class)) {
            Map<String, AttributeHash> pairs = signal == Signal.SPANS ? spanPairs : logPairs;
            List<String> expected = new ArrayList<>();
            for (Attribute.Scope scope : List.of(Attribute.Scope.RESOURCE, Attribute.Scope.SCOPE,
                    Attribute.Scope.RECORD, Attribute.Scope.UNSCOPED)) {
                expected.addAll(new Attribute(signal, scope, "foo").indexedKeys());
            }
            for (Intrinsic intrinsic : Intrinsic.of(signal)) {
                expected.addAll(new Attribute(signal, Attribute.Scope.INTRINSIC, intrinsic.word()).indexedKeys());
            }
            assertEquals(pairs.keySet(), Set.copyOf(expected), signal.name());
        }
    }

    private static SpanRecord span(List<KeyValue> resourceAndScope, List<KeyValue> attributes) {
        return SpanRecord.builder().resource(new Resource(resourceAndScope, 0, ""))
                .scope(new Scope("", "", resourceAndScope, 0, "")).traceId(Bytes.wrap(new byte[16]))
                .spanId(Bytes.wrap(new byte[8])).name("op").kind(2).startTimeUnixNano(1).endTimeUnixNano(2)
                .attributes(attributes).build();
    }
}
