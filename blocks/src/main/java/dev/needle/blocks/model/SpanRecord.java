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
}
