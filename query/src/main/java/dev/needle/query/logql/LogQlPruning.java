package dev.needle.query.logql;

import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.query.logql.pipeline.LabelFilter;
import dev.needle.query.logql.pipeline.Stage;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What of a log query the engine's lookups can decide: an {@link Expr} that every entry the query
 * matches satisfies (so that ATTR_IDX, BATCH_ATTR_IDX and zone maps prune on it), and a trace id for
 * TRACE_IDX when the query filters {@code | trace_id="…"}. The query itself is then judged on the
 * rows the lookup returns, so the Expr only has to be implied by the query, never equal to it.
 *
 * <p>An equality {@code name="v"} (v not empty) on a stream label becomes an OR over every indexed
 * resource key whose label name is {@code name} and every typed value that Loki renders as v (the
 * string, and the int, double or bool whose rendering is v); on a label filter it takes scope and
 * record attribute keys too. The keys are those that the blocks in the query's time range and the
 * head hold ({@link dev.needle.query.engine.QueryEngine#logTags}), so none that could match is left
 * out. {@code service_name} also takes the keys Loki discovers it from, and {@code unknown_service}
 * and the fields of {@link LokiEntry#FIELDS} (but a trace id) decide nothing. Regexes, {@code !=}, line
 * filters, alternatives ({@code or}), comparisons of numbers, durations and sizes, and every label
 * filter after a stage that may change labels decide nothing either: they are judged on the rows.
 *
 * @param expr    what the lookup must find, a superset of the query's entries
 * @param traceId the trace whose logs hold every match (look them up by id), or null
 * @param nothing whether no key the query needs is held in the range: nothing can match
 */
public record LogQlPruning(Expr expr, Bytes traceId, boolean nothing) {

    private static final Pattern TRACE_HEX = Pattern.compile("[0-9a-f]{32}");
    private static final Pattern INT = Pattern.compile("-?(0|[1-9][0-9]{0,18})");
    private static final List<Namespace> LABELS = List.of(new Namespace(IndexedPairs.RESOURCE, Attribute.Scope.RESOURCE));
    private static final List<Namespace> ALL = List.of(new Namespace(IndexedPairs.RESOURCE, Attribute.Scope.RESOURCE),
            new Namespace(IndexedPairs.SCOPE, Attribute.Scope.SCOPE), new Namespace(IndexedPairs.LOG, Attribute.Scope.RECORD));

    private record Namespace(String prefix, Attribute.Scope scope) {
    }

    /** The pruning of {@code query}, given the indexed keys ({@code resource.k}, {@code log.k} …) in its range. */
    public static LogQlPruning of(LogQl.LogQuery query, Collection<String> indexedKeys) {
        List<Expr> terms = new ArrayList<>();
        Bytes traceId = null;
        for (LogQl.Matcher m : query.selector()) {
            if (decides(m)) {
                Expr term = term(m, indexedKeys, LABELS);
                if (term == null) {
                    return new LogQlPruning(new Expr.MatchAll(), null, true);
                }
                terms.add(term);
            }
        }
        for (LogQl.Matcher m : decidedFilters(query)) {
            if (m.name().equals(LokiEntry.TRACE_ID)) {
                // Only the record's trace id is certain to give the value, unless an attribute is named so too.
                boolean named = !keys(LokiEntry.TRACE_ID, indexedKeys, ALL).isEmpty();
                if (!named && TRACE_HEX.matcher(m.value()).matches() && traceId == null) {
                    traceId = Bytes.fromHex(m.value());
                }
                continue;
            }
            if (LokiEntry.FIELDS.contains(m.name())) {
                continue;
            }
            Expr term = term(m, indexedKeys, m.name().equals(LokiEntry.SERVICE_NAME) ? LABELS : ALL);
            if (term == null) {
                return new LogQlPruning(new Expr.MatchAll(), null, true);
            }
            terms.add(term);
        }
        Expr expr = terms.isEmpty() ? new Expr.MatchAll() : terms.size() == 1 ? terms.get(0) : new Expr.And(terms);
        return new LogQlPruning(expr, traceId, false);
    }

    /** Whether any matcher or filter of {@code query} is one a lookup can decide, which needs the keys in the range. */
    public static boolean needsKeys(LogQl.LogQuery query) {
        return query.selector().stream().anyMatch(LogQlPruning::decides) || !decidedFilters(query).isEmpty();
    }

    /**
     * The label filters' equalities that every matching entry satisfies on its own record: those of a
     * filter's top-level {@code and}s, in the stages before the first that may add, change or remove a
     * label (after a parser, {@code label_format}, {@code drop} or {@code keep} a label may hold what no
     * attribute does).
     */
    private static List<LogQl.Matcher> decidedFilters(LogQl.LogQuery query) {
        List<LogQl.Matcher> out = new ArrayList<>();
        for (Stage stage : query.pipeline()) {
            if (stage.changesLabels()) {
                break;
            }
            if (stage instanceof LabelFilter f) {
                for (LabelFilter.Predicate p : f.conjuncts()) {
                    if (p instanceof LabelFilter.Match m && decides(m.matcher())) {
                        out.add(m.matcher());
                    }
                }
            }
        }
        return out;
    }

    /** Whether the engine can decide the matcher: a non-empty equality, other than on the unknown service. */
    private static boolean decides(LogQl.Matcher m) {
        return m.op() == LogQl.MatchOp.EQ && !m.value().isEmpty()
                && !(m.name().equals(LokiEntry.SERVICE_NAME) && m.value().equals(LokiEntry.UNKNOWN_SERVICE));
    }

    /** The OR of every (key, typed value) that could show as {@code m}; null when no key could. */
    private static Expr term(LogQl.Matcher m, Collection<String> indexedKeys, List<Namespace> namespaces) {
        List<Literal> literals = literals(m.value());
        List<Expr> any = new ArrayList<>();
        for (Attribute a : keys(m.name(), indexedKeys, namespaces)) {
            for (Literal l : literals) {
                any.add(new Expr.Condition(a, Op.EQ, l));
            }
        }
        return any.isEmpty() ? null : any.size() == 1 ? any.get(0) : new Expr.Or(any);
    }

    /** The attributes whose label name is {@code name}; for {@code service_name}, also those it is discovered from. */
    private static List<Attribute> keys(String name, Collection<String> indexedKeys, List<Namespace> namespaces) {
        Set<String> names = new HashSet<>();
        names.add(name);
        if (name.equals(LokiEntry.SERVICE_NAME)) {
            names.addAll(LokiEntry.SERVICE_DISCOVERY);
        }
        List<Attribute> out = new ArrayList<>();
        for (String indexed : indexedKeys) {
            for (Namespace ns : namespaces) {
                if (indexed.startsWith(ns.prefix())) {
                    String key = indexed.substring(ns.prefix().length());
                    if (names.contains(LokiEntry.labelName(key))) {
                        out.add(new Attribute(Signal.LOGS, ns.scope(), key));
                    }
                }
            }
        }
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }

    /** Every typed literal whose values Loki renders as {@code v}: the string, and an int, double or bool. */
    static List<Literal> literals(String v) {
        List<Literal> out = new ArrayList<>();
        out.add(new Literal.StringLit(v));
        if (INT.matcher(v).matches()) {
            try {
                // An int value 5, and a double 5.0 (rendered "5"), which the int's key covers too.
                out.add(new Literal.IntLit(Long.parseLong(v)));
                return out;
            } catch (NumberFormatException e) {
                // Beyond int64: only a double can render so.
            }
        }
        if (v.equals("true") || v.equals("false")) {
            out.add(new Literal.BoolLit(v.equals("true")));
        } else if (!v.isEmpty() && (Character.isDigit(v.charAt(0)) || v.charAt(0) == '-' || v.charAt(0) == '.')) {
            try {
                double d = Double.parseDouble(v);
                if (Double.isFinite(d) && LokiEntry.number(d).equals(v)) {
                    out.add(new Literal.DoubleLit(d));
                }
            } catch (NumberFormatException e) {
                // Not a number: only the string renders so.
            }
        }
        return out;
    }
}
