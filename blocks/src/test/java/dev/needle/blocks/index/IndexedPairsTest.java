package dev.needle.blocks.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IndexedPairsTest {

    private static final int RECORDS = 2_000;

    /** What a sink was given, as (key, value) pairs in order. */
    private static final class Recorded implements IndexedPairs.Sink {
        final List<List<Object>> pairs = new ArrayList<>();

        @Override
        public void string(String key, String value) {
            pairs.add(List.of(key, new AnyValue.Str(value)));
        }

        @Override
        public void integer(String key, long value) {
            pairs.add(List.of(key, new AnyValue.Int(value)));
        }

        @Override
        public void dbl(String key, double value) {
            pairs.add(List.of(key, new AnyValue.Dbl(value)));
        }

        @Override
        public void bool(String key, boolean value) {
            pairs.add(List.of(key, new AnyValue.Bool(value)));
        }
    }

    @Test
    void span_passesOnEachIndexedIntrinsicAsIntrinsicStoredGivesIt_overRandomSpans() {
        Random random = new Random(17);
        for (int n = 0; n < RECORDS; n++) {
            SpanRecord s = SpanRecord.builder().traceId(Bytes.wrap(new byte[16])).spanId(Bytes.wrap(new byte[8]))
                    .parentSpanId(Bytes.wrap(new byte[0])).name("op" + random.nextInt(50))
                    .kind(random.nextInt(6) - (n % 97 == 0 ? 9 : 0)).endTimeUnixNano(random.nextInt(1000))
                    .statusCode(random.nextInt(3) + (n % 89 == 0 ? Integer.MIN_VALUE : 0))
                    .statusMessage("m" + random.nextInt(3)).build();
            Recorded recorded = new Recorded();
            new IndexedPairs(recorded).span(s);
            List<List<Object>> expected = new ArrayList<>();
            for (Intrinsic i : Intrinsic.of(Signal.SPANS)) {
                i.indexedKey().ifPresent(key -> expected.add(List.of(key, i.stored(s))));
            }
            assertEquals(expected, recorded.pairs, s.toString());
        }
    }

    @Test
    void log_passesOnEachIndexedIntrinsicAsIntrinsicStoredGivesIt_overRandomLogs() {
        Random random = new Random(19);
        for (int n = 0; n < RECORDS; n++) {
            LogRecord r = LogRecord.builder().timeUnixNano(random.nextLong()).severityNumber(random.nextInt(30) - 3)
                    .body(new AnyValue.Str("body")).traceId(Bytes.wrap(new byte[0])).spanId(Bytes.wrap(new byte[0]))
                    .build();
            Recorded recorded = new Recorded();
            new IndexedPairs(recorded).log(r);
            List<List<Object>> expected = new ArrayList<>();
            for (Intrinsic i : Intrinsic.of(Signal.LOGS)) {
                i.indexedKey().ifPresent(key -> expected.add(List.of(key, i.stored(r))));
            }
            assertEquals(expected, recorded.pairs, r.toString());
        }
    }
}
