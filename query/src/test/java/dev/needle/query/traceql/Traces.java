package dev.needle.query.traceql;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;

/** Spans built by hand for the tests: ids are small numbers, times in nanoseconds. */
final class Traces {

    static final Bytes TRACE = Bytes.fromHex("0102030405060708090a0b0c0d0e0f10");

    private Traces() {
    }

    /** A span builder with the fields the tests vary. */
    static final class Span {
        private final int id;
        private int parent;
        private String name = "";
        private String service = "";
        private int kind;
        private int status;
        private long start;
        private long end = 1;
        private final List<KeyValue> attributes = new ArrayList<>();
        private final List<SpanEvent> events = new ArrayList<>();

        Span(int id) {
            this.id = id;
        }

        Span parent(int parent) {
            this.parent = parent;
            return this;
        }

        Span name(String name) {
            this.name = name;
            return this;
        }

        Span service(String service) {
            this.service = service;
            return this;
        }

        Span kind(int kind) {
            this.kind = kind;
            return this;
        }

        Span status(int status) {
            this.status = status;
            return this;
        }

        Span time(long start, long end) {
            this.start = start;
            this.end = end;
            return this;
        }

        Span attr(String key, Object value) {
            attributes.add(new KeyValue(key, any(value)));
            return this;
        }

        Span event(String name, long time, String key, Object value) {
            events.add(new SpanEvent(time, name, key == null ? List.of() : List.of(new KeyValue(key, any(value))), 0));
            return this;
        }

        SpanRecord build() {
            Resource resource = service.isEmpty() ? Resource.EMPTY
                    : new Resource(List.of(KeyValue.of("service.name", service)), 0, "");
            return SpanRecord.builder().resource(resource).traceId(TRACE).spanId(id(id))
                    .parentSpanId(parent == 0 ? Bytes.EMPTY : id(parent)).name(name).kind(kind)
                    .startTimeUnixNano(start).endTimeUnixNano(end).attributes(attributes).events(events)
                    .statusCode(status).build();
        }
    }

    static Span span(int id) {
        return new Span(id);
    }

    static Bytes id(int id) {
        return Bytes.fromHex(String.format("%016x", id));
    }

    static AnyValue any(Object v) {
        if (v instanceof String s) {
            return new AnyValue.Str(s);
        } else if (v instanceof Integer i) {
            return new AnyValue.Int(i);
        } else if (v instanceof Long l) {
            return new AnyValue.Int(l);
        } else if (v instanceof Double d) {
            return new AnyValue.Dbl(d);
        }
        return new AnyValue.Bool((Boolean) v);
    }
}
