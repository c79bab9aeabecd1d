package dev.needle.ingest.server;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;

/** Small spans for the tests: {@code n} spans of one trace, each with its own span id. */
final class Spans {

    /** 2025-11-29T19:55:00Z, where every test span starts (plus its index in milliseconds). */
    static final long START = 1_764_446_100_000_000_000L;

    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "needle-test")), 0, "");
    private static final Scope SCOPE = new Scope("needle-test", "1", List.of(), 0, "");

    private Spans() {
    }

    /** A trace id as 32 hex digits: {@code prefix} (up to 8 hex digits) then {@code n}. */
    static String traceHex(long prefix, long n) {
        return String.format("%08x%08x%016x", prefix, 0xFEEDL, n);
    }

    /** {@code n} spans of trace {@code traceHex}, span ids 1..n. */
    static List<SpanRecord> of(String traceHex, int n) {
        List<SpanRecord> out = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            long start = START + i * 1_000_000L;
            out.add(SpanRecord.builder().resource(RESOURCE).scope(SCOPE).traceId(Bytes.fromHex(traceHex))
                    .spanId(Bytes.fromHex(String.format("%016x", i))).flags(1).name("op-" + i).kind(2)
                    .startTimeUnixNano(start).endTimeUnixNano(start + 500_000)
                    .attributes(List.of(KeyValue.of("i", i))).build());
        }
        return out;
    }
}
