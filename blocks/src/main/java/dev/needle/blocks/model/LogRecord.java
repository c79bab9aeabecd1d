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
}
