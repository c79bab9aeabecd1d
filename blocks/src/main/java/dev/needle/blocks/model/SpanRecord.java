package dev.needle.blocks.model;

import java.util.List;

/**
 * One span with its resource and scope: everything OTLP carries for it. Times are OTLP's fixed64
 * nanoseconds since the epoch, held as signed longs (valid until 2262). Enums are OTLP's integers.
 */
public record SpanRecord(
        Resource resource,
        Scope scope,
        Bytes traceId,
        Bytes spanId,
        String traceState,
        Bytes parentSpanId,
        int flags,
        String name,
        int kind,
        long startTimeUnixNano,
        long endTimeUnixNano,
        List<KeyValue> attributes,
        int droppedAttributesCount,
        List<SpanEvent> events,
        int droppedEventsCount,
        List<SpanLink> links,
        int droppedLinksCount,
        int statusCode,
        String statusMessage) {

    public SpanRecord {
        attributes = List.copyOf(attributes);
        events = List.copyOf(events);
        links = List.copyOf(links);
    }

    /** end − start, the span's duration in nanoseconds. */
    public long durationNano() {
        return endTimeUnixNano - startTimeUnixNano;
    }

    /** A builder of a span whose fields are all unset: empty, zero, or the empty resource and scope. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this span's fields, to make one that differs in a few. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.resource = resource;
        b.scope = scope;
        b.traceId = traceId;
        b.spanId = spanId;
        b.traceState = traceState;
        b.parentSpanId = parentSpanId;
        b.flags = flags;
        b.name = name;
        b.kind = kind;
        b.startTimeUnixNano = startTimeUnixNano;
        b.endTimeUnixNano = endTimeUnixNano;
        b.attributes = attributes;
        b.droppedAttributesCount = droppedAttributesCount;
        b.events = events;
        b.droppedEventsCount = droppedEventsCount;
        b.links = links;
        b.droppedLinksCount = droppedLinksCount;
        b.statusCode = statusCode;
        b.statusMessage = statusMessage;
        return b;
    }

    /** Sets a span's fields by name; what is not set stays empty or zero. */
    public static final class Builder {
        private Resource resource = Resource.EMPTY;
        private Scope scope = Scope.EMPTY;
        private Bytes traceId = Bytes.EMPTY;
        private Bytes spanId = Bytes.EMPTY;
        private String traceState = "";
        private Bytes parentSpanId = Bytes.EMPTY;
        private int flags;
        private String name = "";
        private int kind;
        private long startTimeUnixNano;
        private long endTimeUnixNano;
        private List<KeyValue> attributes = List.of();
        private int droppedAttributesCount;
        private List<SpanEvent> events = List.of();
        private int droppedEventsCount;
        private List<SpanLink> links = List.of();
        private int droppedLinksCount;
        private int statusCode;
        private String statusMessage = "";

        private Builder() {
        }

        public Builder resource(Resource resource) {
            this.resource = resource;
            return this;
        }

        public Builder scope(Scope scope) {
            this.scope = scope;
            return this;
        }

        public Builder traceId(Bytes traceId) {
            this.traceId = traceId;
            return this;
        }

        public Builder spanId(Bytes spanId) {
            this.spanId = spanId;
            return this;
        }

        public Builder traceState(String traceState) {
            this.traceState = traceState;
            return this;
        }

        public Builder parentSpanId(Bytes parentSpanId) {
            this.parentSpanId = parentSpanId;
            return this;
        }

        public Builder flags(int flags) {
            this.flags = flags;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder kind(int kind) {
            this.kind = kind;
            return this;
        }

        public Builder startTimeUnixNano(long startTimeUnixNano) {
            this.startTimeUnixNano = startTimeUnixNano;
            return this;
        }

        public Builder endTimeUnixNano(long endTimeUnixNano) {
            this.endTimeUnixNano = endTimeUnixNano;
            return this;
        }

        public Builder attributes(List<KeyValue> attributes) {
            this.attributes = attributes;
            return this;
        }

        public Builder droppedAttributesCount(int droppedAttributesCount) {
            this.droppedAttributesCount = droppedAttributesCount;
            return this;
        }

        public Builder events(List<SpanEvent> events) {
            this.events = events;
            return this;
        }

        public Builder droppedEventsCount(int droppedEventsCount) {
            this.droppedEventsCount = droppedEventsCount;
            return this;
        }

        public Builder links(List<SpanLink> links) {
            this.links = links;
            return this;
        }

        public Builder droppedLinksCount(int droppedLinksCount) {
            this.droppedLinksCount = droppedLinksCount;
            return this;
        }

        public Builder statusCode(int statusCode) {
            this.statusCode = statusCode;
            return this;
        }

        public Builder statusMessage(String statusMessage) {
            this.statusMessage = statusMessage;
            return this;
        }

        public SpanRecord build() {
            return new SpanRecord(resource, scope, traceId, spanId, traceState, parentSpanId, flags, name, kind,
                    startTimeUnixNano, endTimeUnixNano, attributes, droppedAttributesCount, events,
                    droppedEventsCount, links, droppedLinksCount, statusCode, statusMessage);
        }
    }
}
