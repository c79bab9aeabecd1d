package dev.needle.query.engine;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import java.util.List;

/**
 * The values one decoded record has for the attributes a query names, and the evaluation of a
 * query against them, with {@link Expr.Condition#matches} as the single definition of a match.
 * The head's records are tested this way; blocks are tested on their columns by
 * {@link ColumnKernels}, which must answer exactly as this does for every decoded row.
 */
interface Values {

    /** Whether any value the record has for the condition's attribute satisfies it. */
    boolean anyMatches(Expr.Condition condition);

    /** Whether the record satisfies {@code expr}. */
    static boolean matches(Expr expr, Values values) {
        if (expr instanceof Expr.Condition c) {
            return values.anyMatches(c);
        } else if (expr instanceof Expr.And and) {
            for (Expr term : and.terms()) {
                if (!matches(term, values)) {
                    return false;
                }
            }
            return true;
        } else if (expr instanceof Expr.Or or) {
            for (Expr term : or.terms()) {
                if (matches(term, values)) {
                    return true;
                }
            }
            return false;
        }
        return true;
    }

    /**
     * The values of a decoded span seen alone: a condition on its trace ({@code trace:rootService}
     * and the like) may hold, so it holds here, and the whole trace decides it later
     * ({@link #of(SpanRecord, WholeTrace)}). AND and OR are monotone, so the spans this accepts
     * include every span the whole trace accepts.
     */
    static Values of(SpanRecord s) {
        return of(s, null);
    }

    /** The values of a decoded span of {@code trace}, which answers the conditions on the trace; null: they may hold. */
    static Values of(SpanRecord s, WholeTrace trace) {
        return c -> {
            Attribute a = c.attribute();
            return switch (a.scope()) {
                case RESOURCE -> any(s.resource().attributes(), c);
                case SCOPE -> any(s.scope().attributes(), c);
                case RECORD -> any(s.attributes(), c);
                case UNSCOPED -> any(s.resource().attributes(), c) || any(s.scope().attributes(), c)
                        || any(s.attributes(), c);
                case INTRINSIC -> c.matches(a.intrinsic().value(s));
                case TRACE -> trace == null || c.matches(trace.value(a.key()));
                case EVENT -> anyEventName(s.events(), c);
            };
        };
    }

    /** The values of a decoded log record. */
    static Values of(LogRecord r) {
        return c -> {
            Attribute a = c.attribute();
            return switch (a.scope()) {
                case RESOURCE -> any(r.resource().attributes(), c);
                case SCOPE -> any(r.scope().attributes(), c);
                case RECORD -> any(r.attributes(), c);
                case UNSCOPED -> any(r.resource().attributes(), c) || any(r.scope().attributes(), c)
                        || any(r.attributes(), c);
                case INTRINSIC -> c.matches(a.intrinsic().value(r));
                case TRACE, EVENT -> throw new IllegalArgumentException("log records have no " + a);
            };
        };
    }

    /** Whether the name of any of {@code events} satisfies {@code c}; a span without events satisfies none. */
    static boolean anyEventName(List<SpanEvent> events, Expr.Condition c) {
        for (SpanEvent e : events) {
            if (c.matches(new AnyValue.Str(e.name()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean any(List<KeyValue> attributes, Expr.Condition c) {
        for (KeyValue kv : attributes) {
            if (kv.key().equals(c.attribute().key()) && c.matches(kv.value())) {
                return true;
            }
        }
        return false;
    }
}
