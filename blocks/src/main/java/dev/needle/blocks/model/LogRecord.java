package dev.needle.blocks.model;

import java.util.List;

/**
 * One log record with its resource and scope: everything OTLP carries for it. Trace and span id
 * are empty when the record is not correlated with a trace.
 */
public record LogRecord(
        Resource resource,
        Scope scope,
        long timeUnixNano,
        long observedTimeUnixNano,
        int severityNumber,
        String severityText,
        AnyValue body,
        List<KeyValue> attributes,
        int droppedAttributesCount,
        int flags,
        Bytes traceId,
        Bytes spanId,
        String eventName) {

    public LogRecord {
        attributes = List.copyOf(attributes);
    }

    /** The time the event happened: its own time, or when unset (0) the time it was observed, as OTLP says. */
    public long eventTimeUnixNano() {
        return timeUnixNano != 0 ? timeUnixNano : observedTimeUnixNano;
    }

    /** A builder of a log record whose fields are all unset: empty, zero, or the empty resource and scope. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this log record's fields, to make one that differs in a few. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.resource = resource;
        b.scope = scope;
        b.timeUnixNano = timeUnixNano;
        b.observedTimeUnixNano = observedTimeUnixNano;
        b.severityNumber = severityNumber;
        b.severityText = severityText;
        b.body = body;
        b.attributes = attributes;
        b.droppedAttributesCount = droppedAttributesCount;
        b.flags = flags;
        b.traceId = traceId;
        b.spanId = spanId;
        b.eventName = eventName;
        return b;
    }

    /** Sets a log record's fields by name; what is not set stays empty or zero. */
    public static final class Builder {
        private Resource resource = Resource.EMPTY;
        private Scope scope = Scope.EMPTY;
        private long timeUnixNano;
        private long observedTimeUnixNano;
        private int severityNumber;
        private String severityText = "";
        private AnyValue body = AnyValue.Empty.INSTANCE;
        private List<KeyValue> attributes = List.of();
        private int droppedAttributesCount;
        private int flags;
        private Bytes traceId = Bytes.EMPTY;
        private Bytes spanId = Bytes.EMPTY;
        private String eventName = "";

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

        public Builder timeUnixNano(long timeUnixNano) {
            this.timeUnixNano = timeUnixNano;
            return this;
        }

        public Builder observedTimeUnixNano(long observedTimeUnixNano) {
            this.observedTimeUnixNano = observedTimeUnixNano;
            return this;
        }

        public Builder severityNumber(int severityNumber) {
            this.severityNumber = severityNumber;
            return this;
        }

        public Builder severityText(String severityText) {
            this.severityText = severityText;
            return this;
        }

        public Builder body(AnyValue body) {
            this.body = body;
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

        public Builder flags(int flags) {
            this.flags = flags;
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

        public Builder eventName(String eventName) {
            this.eventName = eventName;
            return this;
        }

        public LogRecord build() {
            return new LogRecord(resource, scope, timeUnixNano, observedTimeUnixNano, severityNumber, severityText,
                    body, attributes, droppedAttributesCount, flags, traceId, spanId, eventName);
        }
    }
}
