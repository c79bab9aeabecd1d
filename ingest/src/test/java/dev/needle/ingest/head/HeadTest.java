package dev.needle.ingest.head;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.HeapEstimate;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.HeadSource.Part;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The head's trace index answers exactly what a scan of the whole head would, part by part. */
class HeadTest {

    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "head-test")), 0, "");
    private static final Scope SCOPE = new Scope("head-test", "1", List.of(), 0, "");
    private static final List<TenantId> TENANTS = List.of(TenantId.DEFAULT, TenantId.of("acme"));
    private static final int TRACES = 40;

    @Test
    void traceParts_equalTheScanOfEveryPart_acrossTenantsCutsAndReleases() {
        Random random = new Random(11);
        Head head = new Head();
        List<Cut> cuts = new ArrayList<>();
        long sequence = 0;
        for (int round = 0; round < 60; round++) {
            TenantId tenant = TENANTS.get(random.nextInt(TENANTS.size()));
            sequence++;
            if (random.nextBoolean()) {
                head.add(new WalEntry(sequence, Signal.SPANS, tenant, new byte[0]), Records.of(SignalKind.SPANS,
                        spans(random)));
            } else {
                head.add(new WalEntry(sequence, Signal.LOGS, tenant, new byte[0]), Records.of(SignalKind.LOGS,
                        logs(random)));
            }
            if (round % 9 == 8) {
                cuts.add(head.cut(7, ""));
            }
            if (round % 13 == 12 && !cuts.isEmpty()) {
                head.release(cuts.remove(0), List.of());
            }
            for (TenantId t : TENANTS) {
                for (int trace = 0; trace <= TRACES; trace++) {
                    Bytes id = traceId(trace);
                    assertEquals(scan(head.spanParts(t), s -> s.traceId().equals(id)), head.traceSpanParts(t, id),
                            "spans of trace " + trace + " of " + t + " after round " + round);
                    assertEquals(scan(head.logParts(t), r -> r.traceId().equals(id)), head.traceLogParts(t, id),
                            "logs of trace " + trace + " of " + t + " after round " + round);
                }
            }
        }
        assertTrue(head.rows() > 0 && !cuts.isEmpty(), "the test ends with records both active and being published");
    }

    @Test
    void theTraceIdHashes_areCountedInTheHeadsHeap() {
        Head head = new Head();
        List<SpanRecord> list = spans(new Random(3));
        Records<SpanRecord> spans = Records.of(SignalKind.SPANS, list);
        head.add(new WalEntry(1, Signal.SPANS, TenantId.DEFAULT, new byte[0]), spans);

        assertEquals(HeapEstimate.spans(list) + 12 + 4 + 4L * list.size() + 4, spans.heapBytes());
        assertEquals(spans.heapBytes(), head.heapBytes());
    }

    /** The parts as the engine would see them from a whole scan: each part's matching records, empty parts dropped. */
    private static <R> List<Part<R>> scan(List<Part<R>> parts, Predicate<R> keep) {
        return HeadSource.filter(parts, keep);
    }

    private static Bytes traceId(int n) {
        return Bytes.fromHex(String.format("%032x", n + 1));
    }

    private static List<SpanRecord> spans(Random random) {
        List<SpanRecord> out = new ArrayList<>();
        for (int i = random.nextInt(6); i >= 0; i--) {
            long start = 1_764_446_100_000_000_000L + random.nextInt(1_000_000);
            out.add(SpanRecord.builder().resource(RESOURCE).scope(SCOPE).traceId(traceId(random.nextInt(TRACES)))
                    .spanId(Bytes.fromHex(String.format("%016x", random.nextLong() | 1))).flags(1).name("op").kind(2)
                    .startTimeUnixNano(start).endTimeUnixNano(start + 1000).build());
        }
        return out;
    }

    private static List<LogRecord> logs(Random random) {
        List<LogRecord> out = new ArrayList<>();
        for (int i = random.nextInt(6); i >= 0; i--) {
            // A third of the records belong to no trace: they are never in a trace's answer.
            Bytes trace = random.nextInt(3) == 0 ? Bytes.EMPTY : traceId(random.nextInt(TRACES));
            out.add(LogRecord.builder().resource(RESOURCE).scope(SCOPE).timeUnixNano(1_764_446_100_000_000_000L + i)
                    .severityNumber(9).severityText("INFO").body(AnyValue.of("line " + i)).traceId(trace).build());
        }
        return out;
    }
}
