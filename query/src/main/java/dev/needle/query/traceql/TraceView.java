package dev.needle.query.traceql;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The spans of one trace, numbered in the order given, with their family relations (from span and
 * parent ids) and the value each field has on each span. A span whose parent is not in the trace
 * is a root of the relations; {@code trace:rootName} and {@code trace:rootService} are the first
 * span without a parent id.
 */
final class TraceView {

    final List<SpanRecord> spans;
    /** The index of each span's parent in the trace, or -1. */
    final int[] parent;
    final int[] childCount;
    final int[] nestedLeft;
    final int[] nestedRight;
    private final int root;
    private final long traceDurationNanos;

    TraceView(List<SpanRecord> spans) {
        this.spans = List.copyOf(spans);
        int n = spans.size();
        parent = new int[n];
        childCount = new int[n];
        nestedLeft = new int[n];
        nestedRight = new int[n];
        Map<Bytes, Integer> byId = new HashMap<>();
        for (int i = 0; i < n; i++) {
            byId.putIfAbsent(spans.get(i).spanId(), i);
        }
        List<List<Integer>> children = new ArrayList<>();
        int firstRoot = -1;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            SpanRecord s = spans.get(i);
            children.add(new ArrayList<>());
            Integer p = s.parentSpanId().isEmpty() ? null : byId.get(s.parentSpanId());
            parent[i] = p == null || p == i ? -1 : p;
            if (firstRoot < 0 && s.parentSpanId().isEmpty()) {
                firstRoot = i;
            }
            min = Math.min(min, s.startTimeUnixNano());
            max = Math.max(max, s.endTimeUnixNano());
        }
        for (int i = 0; i < n; i++) {
            if (parent[i] >= 0) {
                children.get(parent[i]).add(i);
                childCount[parent[i]]++;
            }
        }
        int[] counter = {1};
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            if (parent[i] < 0) {
                number(i, children, counter, seen);
            }
        }
        root = firstRoot;
        traceDurationNanos = n == 0 ? 0 : max - min;
    }

    /** Nested-set numbers in depth-first order, without recursion so that deep traces are no risk; a cycle is left unnumbered. */
    private void number(int top, List<List<Integer>> children, int[] counter, boolean[] seen) {
        List<int[]> stack = new ArrayList<>();
        seen[top] = true;
        nestedLeft[top] = counter[0]++;
        stack.add(new int[] {top, 0});
        while (!stack.isEmpty()) {
            int[] frame = stack.get(stack.size() - 1);
            List<Integer> kids = children.get(frame[0]);
            if (frame[1] < kids.size()) {
                int c = kids.get(frame[1]++);
                if (!seen[c]) {
                    seen[c] = true;
                    nestedLeft[c] = counter[0]++;
                    stack.add(new int[] {c, 0});
                }
            } else {
                nestedRight[frame[0]] = counter[0]++;
                stack.remove(stack.size() - 1);
            }
        }
    }

    int size() {
        return spans.size();
    }

    /** The value of {@code field} on span {@code i}, reading event {@code event} and link {@code link} (-1: none). */
    Value value(FieldExpr field, int i, int event, int link) {
        if (field instanceof FieldExpr.Attribute a) {
            return attribute(a, i, event, link);
        }
        return intrinsic(((FieldExpr.IntrinsicField) field).intrinsic(), i, event, link);
    }

    private Value attribute(FieldExpr.Attribute a, int i, int event, int link) {
        SpanRecord s = spans.get(i);
        return switch (a.scope()) {
            case SPAN -> find(s.attributes(), a.name());
            case RESOURCE -> find(s.resource().attributes(), a.name());
            case NONE -> {
                Value v = find(s.attributes(), a.name());
                yield v instanceof Value.Nil ? find(s.resource().attributes(), a.name()) : v;
            }
            case EVENT -> event < 0 ? Value.NIL : find(s.events().get(event).attributes(), a.name());
            case LINK -> link < 0 ? Value.NIL : find(s.links().get(link).attributes(), a.name());
            case INSTRUMENTATION -> find(s.scope().attributes(), a.name());
        };
    }

    private Value intrinsic(FieldExpr.Intrinsic f, int i, int event, int link) {
        SpanRecord s = spans.get(i);
        SpanEvent e = event < 0 ? null : s.events().get(event);
        SpanLink l = link < 0 ? null : s.links().get(link);
        return switch (f) {
            case DURATION -> new Value.Duration(s.durationNano());
            case NAME -> new Value.Str(s.name());
            case STATUS -> s.statusCode() >= 0 && s.statusCode() <= 2
                    ? new Value.Status(Value.StatusCode.values()[s.statusCode()]) : Value.NIL;
            case STATUS_MESSAGE -> new Value.Str(s.statusMessage());
            case KIND -> s.kind() >= 0 && s.kind() <= 5 ? new Value.Kind(Value.SpanKind.values()[s.kind()]) : Value.NIL;
            case SPAN_ID -> new Value.Str(s.spanId().hex());
            case PARENT_ID -> s.parentSpanId().isEmpty() ? Value.NIL : new Value.Str(s.parentSpanId().hex());
            case CHILD_COUNT -> new Value.Int(childCount[i]);
            case TRACE_ID -> new Value.Str(s.traceId().hex());
            case TRACE_ROOT_NAME -> root < 0 ? Value.NIL : new Value.Str(spans.get(root).name());
            case TRACE_ROOT_SERVICE -> root < 0 ? Value.NIL : find(spans.get(root).resource().attributes(), "service.name");
            case TRACE_DURATION -> new Value.Duration(traceDurationNanos);
            case EVENT_NAME -> e == null ? Value.NIL : new Value.Str(e.name());
            case EVENT_TIME_SINCE_START -> e == null ? Value.NIL : new Value.Duration(e.timeUnixNano() - s.startTimeUnixNano());
            case LINK_TRACE_ID -> l == null ? Value.NIL : new Value.Str(l.traceId().hex());
            case LINK_SPAN_ID -> l == null ? Value.NIL : new Value.Str(l.spanId().hex());
            case INSTRUMENTATION_NAME -> s.scope().name().isEmpty() ? Value.NIL : new Value.Str(s.scope().name());
            case INSTRUMENTATION_VERSION -> s.scope().version().isEmpty() ? Value.NIL : new Value.Str(s.scope().version());
            case NESTED_SET_LEFT -> new Value.Int(nestedLeft[i]);
            case NESTED_SET_RIGHT -> new Value.Int(nestedRight[i]);
            case NESTED_SET_PARENT -> new Value.Int(parent[i] < 0 ? -1 : nestedLeft[parent[i]]);
        };
    }

    /** The value of the first attribute named {@code key}; arrays, maps and bytes are no TraceQL value. */
    static Value find(List<KeyValue> attributes, String key) {
        for (KeyValue kv : attributes) {
            if (kv.key().equals(key)) {
                return of(kv.value());
            }
        }
        return Value.NIL;
    }

    /** A stored value as TraceQL sees it. */
    static Value of(AnyValue v) {
        if (v instanceof AnyValue.Str s) {
            return new Value.Str(s.value());
        } else if (v instanceof AnyValue.Int i) {
            return new Value.Int(i.value());
        } else if (v instanceof AnyValue.Dbl d) {
            return new Value.Float(d.value());
        } else if (v instanceof AnyValue.Bool b) {
            return new Value.Bool(b.value());
        }
        return Value.NIL;
    }
}
