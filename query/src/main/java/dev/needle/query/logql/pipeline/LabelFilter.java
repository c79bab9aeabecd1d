package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code | predicate}: label filters joined by {@code and} (also {@code ,} or a space) and {@code or},
 * grouped by parentheses, on a label the pipeline made, else a stream label, else structured metadata
 * ({@link EntryState#get}).
 */
public record LabelFilter(Predicate predicate) implements Stage {

    /** How a number, duration or size compares. */
    public enum Cmp {
        EQ("=="), NE("!="), GT(">"), GE(">="), LT("<"), LE("<=");

        private final String symbol;

        Cmp(String symbol) {
            this.symbol = symbol;
        }

        /** How the comparison is written. */
        public String symbol() {
            return symbol;
        }

        boolean holds(int order) {
            return switch (this) {
                case EQ -> order == 0;
                case NE -> order != 0;
                case GT -> order > 0;
                case GE -> order >= 0;
                case LT -> order < 0;
                case LE -> order <= 0;
            };
        }
    }

    /** One predicate of a label filter; each is Loki's {@code LabelFilterer} of the same name. */
    public sealed interface Predicate {
        /** Whether the entry passes; a value that does not convert sets {@code LabelFilterErr} and passes. */
        boolean test(EntryState e);
    }

    /** Both hold; the right is not tested when the left fails. */
    public record And(Predicate left, Predicate right) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            return left.test(e) && right.test(e);
        }

        @Override
        public String toString() {
            return "( " + left + " , " + right + " )";
        }
    }

    /** Either holds; the right is not tested when the left holds. */
    public record Or(Predicate left, Predicate right) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            return left.test(e) || right.test(e);
        }

        @Override
        public String toString() {
            return "( " + left + " or " + right + " )";
        }
    }

    /** {@code name op "value"} on the label's text; a missing label is {@code ""}. */
    public record Match(LogQl.Matcher matcher) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            return matcher.test(e.valueForMatcher(matcher.name()));
        }

        @Override
        public String toString() {
            return matcher.toString();
        }
    }

    /** {@code name > 5}: the label read as a float64; a missing label fails. */
    public record Numeric(String name, Cmp cmp, double value) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            // Go's comparisons: NaN equals nothing and orders with nothing (null: unordered).
            return compare(e, name, cmp, v -> {
                double actual = Units.parseFloat(v);
                return Double.isNaN(actual) || Double.isNaN(value) ? null
                        : Double.compare(actual == 0 ? 0.0 : actual, value == 0 ? 0.0 : value);
            });
        }

        @Override
        public String toString() {
            return name + cmp.symbol() + LokiEntry.number(value);
        }
    }

    /** {@code name > 5s}: the label read as a Go duration; a missing label fails. */
    public record Duration(String name, Cmp cmp, long nanos) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            return compare(e, name, cmp, v -> Long.compare(Units.parseDuration(v, false), nanos));
        }

        @Override
        public String toString() {
            return name + cmp.symbol() + nanos + "ns";
        }
    }

    /** {@code name > 20MB}: the label read as a size in bytes; a missing label fails. */
    public record Bytes(String name, Cmp cmp, long bytes) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            return compare(e, name, cmp, v -> Long.compareUnsigned(Units.parseBytes(v), bytes));
        }

        @Override
        public String toString() {
            return name + cmp.symbol() + bytes + "B";
        }
    }

    /**
     * A converted label against a literal: false when the label is missing; true, with
     * {@code LabelFilterErr}, when {@code order} cannot convert the value; else whether the order
     * (null for unordered, which only {@code !=} holds for) satisfies the comparison.
     */
    private static boolean compare(EntryState e, String name, Cmp cmp, Function<String, Integer> order) {
        String v = e.get(name);
        if (v == null) {
            return false;
        }
        Integer o;
        try {
            o = order.apply(v);
        } catch (IllegalArgumentException ex) {
            e.failFirst(LABEL_FILTER_ERR, ex.getMessage());
            return true;
        }
        return o == null ? cmp == Cmp.NE : cmp.holds(o);
    }

    /** {@code name = ip("10.0.0.0/8")} or {@code !=}: an entry that already has an error passes, a missing label fails. */
    public record Ip(String name, boolean equal, IpMatch ip) implements Predicate {
        @Override
        public boolean test(EntryState e) {
            if (!e.error().isEmpty()) {
                return true;
            }
            String v = e.get(name);
            return v != null && ip.matchesAddress(v) == equal;
        }

        @Override
        public String toString() {
            return name + (equal ? "=" : "!=") + ip;
        }
    }

    /** The error a label filter sets on a value it cannot convert. */
    public static final String LABEL_FILTER_ERR = "LabelFilterErr";

    @Override
    public boolean process(EntryState entry) {
        return predicate.test(entry);
    }

    /** The predicates that must all hold for the filter to pass: the operands of its top-level {@code and}s. */
    public List<Predicate> conjuncts() {
        List<Predicate> out = new ArrayList<>();
        collect(predicate, out);
        return out;
    }

    private static void collect(Predicate p, List<Predicate> out) {
        if (p instanceof And a) {
            collect(a.left(), out);
            collect(a.right(), out);
        } else {
            out.add(p);
        }
    }

    @Override
    public String toString() {
        return "| " + predicate;
    }
}
