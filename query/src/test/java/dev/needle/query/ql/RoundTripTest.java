package dev.needle.query.ql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.Severity;
import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Attribute.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Property: for random trees, {@code parse(e.toString()) == e}, with a fixed seed so that failures repeat. */
class RoundTripTest {

    private static final String[] KEY_PIECES = {"a", "service.name", "k8s.pod.name", "http/route", "my key", "q\"uote",
        "back\\slash", "tab\t", "nl\n", "ünï", "\uD83D\uDE00", "", ".x", "-", "x=y", "\u0001", "1.5", "&&", "{}", "_"};
    private static final String[] STRING_PIECES = {"checkout", "200", "", " ", "\"", "\\", "\\u0041", "\n", "\r\t",
        "\u0000", "\u007f", "é", "\uFFFF", "\uD83D\uDE00", "\uD800", "true", "}", "||"};
    private static final String[] REGEXES = {"", "a|b", "x\\.y|\\\\|\"q\"", ".*\n", "[日本]+|🚀", "(?i)get /api/\\d+"};
    private static final long[] LONGS = {0, 1, -1, 500, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 53, 1_500_000_000L,
        3_600_000_000_000L, 7_200_000_000_000L, 60_000_000_000L};
    private static final double[] DOUBLES = {0.0, -0.0, 1.5, 200.0, 1e19, 0x1p63, Double.MIN_VALUE, Double.MAX_VALUE,
        -Double.MAX_VALUE, 0.1, 1e-7, 123456789.125};

    @Test
    void parse_toString_roundTrips() throws QueryParseException {
        Random random = new Random(0x5EED);
        for (int i = 0; i < 5_000; i++) {
            Signal signal = random.nextBoolean() ? Signal.SPANS : Signal.LOGS;
            Expr e = random.nextInt(50) == 0 ? new Expr.MatchAll() : expr(random, signal, 3);
            String text = e.toString();
            Expr back = QueryParser.parse(text, signal);
            assertEquals(e, back, text);
            assertEquals(text, back.toString());
        }
    }

    private static Expr expr(Random r, Signal signal, int depth) {
        if (depth == 0 || r.nextInt(3) == 0) {
            return condition(r, signal);
        }
        List<Expr> terms = new ArrayList<>();
        for (int n = 2 + r.nextInt(3); n > 0; n--) {
            terms.add(expr(r, signal, depth - 1));
        }
        return r.nextBoolean() ? new Expr.And(terms) : new Expr.Or(terms);
    }

    private static Expr.Condition condition(Random r, Signal signal) {
        Scope scope = Scope.values()[r.nextInt(Scope.values().length)];
        if (signal == Signal.LOGS && (scope == Scope.TRACE || scope == Scope.EVENT)) {
            scope = Scope.RECORD;
        }
        List<Intrinsic> intrinsics = Intrinsic.of(signal);
        String key = switch (scope) {
            case INTRINSIC -> intrinsics.get(r.nextInt(intrinsics.size())).word();
            case TRACE -> TraceField.words().get(r.nextInt(TraceField.values().length));
            case EVENT -> Attribute.EVENT_NAME;
            default -> text(r, KEY_PIECES);
        };
        Attribute attribute = new Attribute(signal, scope, key);
        Literal literal = scope == Scope.INTRINSIC ? intrinsicLiteral(r, attribute.intrinsic())
                : !attribute.isField() ? literal(r)
                : attribute.isStringField() ? new Literal.StringLit(text(r, STRING_PIECES))
                : new Literal.IntLit(r.nextInt(1000) * 1_000_000L);
        Op op = Op.values()[r.nextInt(Op.values().length)];
        if (literal instanceof Literal.BoolLit && op.isOrdering()) {
            op = Op.EQ;
        }
        if (op.isRegex()) {
            boolean takesString = !attribute.isField() || attribute.isStringField();
            literal = takesString ? new Literal.Regex(REGEXES[r.nextInt(REGEXES.length)]) : literal;
            op = takesString ? op : Op.NE;
        }
        return new Expr.Condition(attribute, op, literal);
    }

    private static Literal intrinsicLiteral(Random r, Intrinsic intrinsic) {
        return switch (intrinsic) {
            case NAME, STATUS_MESSAGE -> new Literal.StringLit(text(r, STRING_PIECES));
            case SEVERITY -> new Literal.IntLit(r.nextInt(Severity.MAX_NUMBER + 1));
            case DURATION -> new Literal.IntLit(r.nextBoolean() ? randomLong(r) : r.nextInt(1000) * 1_000_000L);
            case STATUS, KIND -> new Literal.IntLit(r.nextBoolean() ? r.nextInt(9) - 1 : randomLong(r));
        };
    }

    private static Literal literal(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> new Literal.StringLit(text(r, STRING_PIECES));
            case 1 -> new Literal.IntLit(randomLong(r));
            case 2 -> {
                double d = r.nextBoolean() ? DOUBLES[r.nextInt(DOUBLES.length)] : Double.longBitsToDouble(r.nextLong());
                yield new Literal.DoubleLit(Double.isFinite(d) ? d : 2.5);
            }
            default -> new Literal.BoolLit(r.nextBoolean());
        };
    }

    private static long randomLong(Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> LONGS[r.nextInt(LONGS.length)];
            case 1 -> r.nextLong();
            default -> r.nextInt(2001) - 1000;
        };
    }

    private static String text(Random r, String[] pieces) {
        StringBuilder s = new StringBuilder();
        for (int n = r.nextInt(4); n > 0; n--) {
            s.append(pieces[r.nextInt(pieces.length)]);
        }
        return s.toString();
    }
}
