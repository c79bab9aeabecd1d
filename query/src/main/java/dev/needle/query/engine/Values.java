package dev.needle.query.engine;

import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
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

    /** The values of a decoded span. */
    static Values of(SpanRecord s) {
        return c -> {
            Attribute a = c.attribute();
            return switch (a.scope()) {
                case RESOURCE -> any(s.resource().attributes(), c);
                case SCOPE -> any(s.scope().attributes(), c);
                case RECORD -> any(s.attributes(), c);
                case UNSCOPED -> any(s.resource().attributes(), c) || any(s.scope().attributes(), c)
                        || any(s.attributes(), c);
                case INTRINSIC -> c.matches(a.intrinsic().value(s));
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
            };
        };
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
