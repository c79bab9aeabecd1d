package dev.needle.blocks.model;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * How many bytes of Java heap decoded records hold: what the ingest head's memory bound and a
 * query's memory budget count, since the objects take several times their encoded bytes.
 *
 * <p>The layout of a 64-bit JVM with compressed references (12-byte object headers, 4-byte
 * references, 8-byte alignment, Latin-1 strings in one byte a character, which is what
 * telemetry mostly is; others count twice). A resource or scope shared by the records of one
 * request is counted once, as it is held once.
 */
public final class HeapEstimate {

    private static final int HEADER = 12;
    private static final int REF = 4;
    private static final int ARRAY_HEADER = 16;

    private final Map<Object, Boolean> counted = new IdentityHashMap<>();
    private long bytes;

    private HeapEstimate() {
    }

    /** The trace id hashes of one request's records: an int each, in an array. */
    public static long traceHashes(int records) {
        return ARRAY_HEADER + (long) Integer.BYTES * records + REF;
    }

    /** The heap bytes of these spans, their list included. */
    public static long spans(List<SpanRecord> spans) {
        return list(spans, HeapEstimate::add);
    }

    /** The heap bytes of these log records, their list included. */
    public static long logs(List<LogRecord> logs) {
        return list(logs, HeapEstimate::add);
    }

    /** The heap bytes of one span, its resource and scope included. */
    public static long span(SpanRecord s) {
        return one(s, HeapEstimate::add);
    }

    /** The heap bytes of one log record, its resource and scope included. */
    public static long log(LogRecord r) {
        return one(r, HeapEstimate::add);
    }

    private static <R> long one(R record, BiConsumer<HeapEstimate, R> add) {
        HeapEstimate e = new HeapEstimate();
        add.accept(e, record);
        return e.bytes;
    }

    private static <R> long list(List<R> records, BiConsumer<HeapEstimate, R> add) {
        HeapEstimate e = new HeapEstimate();
        e.bytes += list(records.size());
        for (int i = 0, n = records.size(); i < n; i++) {
            add.accept(e, records.get(i));
        }
        return e.bytes;
    }

    private void add(SpanRecord s) {
        bytes += object(11 * REF + 2 * 8 + 6 * 4);
        shared(s.resource(), s.scope());
        bytes += bytes(s.traceId()) + bytes(s.spanId()) + bytes(s.parentSpanId())
                + string(s.traceState()) + string(s.name()) + string(s.statusMessage());
        attributes(s.attributes());
        bytes += list(s.events().size());
        for (SpanEvent e : s.events()) {
            bytes += object(2 * REF + 8 + 4) + string(e.name());
            attributes(e.attributes());
        }
        bytes += list(s.links().size());
        for (SpanLink l : s.links()) {
            bytes += object(4 * REF + 2 * 4) + bytes(l.traceId()) + bytes(l.spanId()) + string(l.traceState());
            attributes(l.attributes());
        }
    }

    private void add(LogRecord r) {
        bytes += object(8 * REF + 2 * 8 + 3 * 4);
        shared(r.resource(), r.scope());
        bytes += string(r.severityText()) + bytes(r.traceId()) + bytes(r.spanId()) + string(r.eventName());
        value(r.body());
        attributes(r.attributes());
    }

    private void shared(Resource resource, Scope scope) {
        if (counted.put(resource, Boolean.TRUE) == null) {
            bytes += object(2 * REF + 4) + string(resource.schemaUrl());
            attributes(resource.attributes());
        }
        if (counted.put(scope, Boolean.TRUE) == null) {
            bytes += object(4 * REF + 4) + string(scope.name()) + string(scope.version()) + string(scope.schemaUrl());
            attributes(scope.attributes());
        }
    }

    private void attributes(List<KeyValue> attributes) {
        bytes += list(attributes.size());
        // By index: an iterator per list was a fifth of what estimating allocated.
        for (int i = 0, n = attributes.size(); i < n; i++) {
            KeyValue kv = attributes.get(i);
            bytes += object(2 * REF) + string(kv.key());
            value(kv.value());
        }
    }

    private void value(AnyValue v) {
        if (v instanceof AnyValue.Str s) {
            bytes += object(REF) + string(s.value());
        } else if (v instanceof AnyValue.Blob b) {
            bytes += object(REF) + bytes(b.value());
        } else if (v instanceof AnyValue.Array a) {
            bytes += object(REF) + list(a.values().size());
            a.values().forEach(this::value);
        } else if (v instanceof AnyValue.KvList kv) {
            bytes += object(REF);
            attributes(kv.values());
        } else {
            bytes += object(8);
        }
    }

    private static long object(int fieldBytes) {
        return align(HEADER + fieldBytes);
    }

    private static long list(int size) {
        return object(2 * 4 + REF) + align(ARRAY_HEADER + (long) REF * size);
    }

    private static long string(String s) {
        if (s == null) {
            return 0;
        }
        int perChar = 1;
        for (int i = 0; i < s.length() && perChar == 1; i++) {
            perChar = s.charAt(i) < 256 ? 1 : 2;
        }
        return object(REF + 2 * 4 + 1) + align(ARRAY_HEADER + (long) s.length() * perChar);
    }

    private static long bytes(Bytes b) {
        return object(REF) + align(ARRAY_HEADER + b.length());
    }

    private static long align(long n) {
        return (n + 7) & ~7L;
    }
}
