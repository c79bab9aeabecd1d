package dev.needle.blocks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BlockNameTest {

    private static final long MS = 1_000_000L;

    private static long nanos(String instant) {
        Instant i = Instant.parse(instant);
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void forRange_designExample_formatsExactly() {
        BlockName name = BlockName.forRange(nanos("2026-11-29T20:15:00.123456789Z"),
                nanos("2026-11-29T20:20:00.456789Z"), "01jdx3");
        assertEquals("20261129T201500.123Z_20261129T202000.457Z_01jdx3", name.toString());
        assertEquals(nanos("2026-11-29T20:15:00.123Z"), name.startUnixNano());
        assertEquals(nanos("2026-11-29T20:20:00.457Z"), name.endUnixNano());
    }

    @Test
    void forRange_oneEvent_startRoundsDownEndRoundsUp() {
        long t = nanos("2026-11-29T20:15:00.123456789Z");
        assertEquals("20261129T201500.123Z_20261129T201500.124Z_a", BlockName.forRange(t, t, "a").toString());
    }

    @Test
    void forRange_exactMillisecond_staysOnIt() {
        long t = nanos("2026-11-29T20:15:00.123Z");
        assertEquals("20261129T201500.123Z_20261129T201500.123Z_a", BlockName.forRange(t, t, "a").toString());
    }

    @Test
    void forRange_beforeEpoch_writesTheRealDate() {
        assertEquals("19691231T235959.999Z_19700101T000000.000Z_a", BlockName.forRange(-1, -1, "a").toString());
        assertEquals("19700101T000000.000Z_19700101T000000.001Z_a", BlockName.forRange(0, 1, "a").toString());
    }

    @Test
    void forRange_wholeLongRange_saturatesAndRoundTrips() {
        BlockName name = BlockName.forRange(Long.MIN_VALUE, Long.MAX_VALUE, "a");
        assertEquals("16770921T001243.145Z_22620411T234716.855Z_a", name.toString());
        assertEquals(Long.MIN_VALUE, name.startUnixNano());
        assertEquals(Long.MAX_VALUE, name.endUnixNano());
        assertEquals(Optional.of(name), BlockName.parse(name.toString()));
        assertEquals("16770921T001243.145Z_16770921T001243.146Z_a",
                BlockName.forRange(Long.MIN_VALUE, Long.MIN_VALUE, "a").toString());
        assertEquals("22620411T234716.854Z_22620411T234716.855Z_a",
                BlockName.forRange(Long.MAX_VALUE, Long.MAX_VALUE, "a").toString());
    }

    @Test
    void forRange_badArguments_refused() {
        assertThrows(IllegalArgumentException.class, () -> BlockName.forRange(2, 1, "a"));
        assertThrows(IllegalArgumentException.class, () -> BlockName.forRange(1, 2, ""));
        assertThrows(IllegalArgumentException.class, () -> BlockName.forRange(1, 2, "ABC"));
        assertThrows(IllegalArgumentException.class, () -> BlockName.forRange(1, 2, "a_b"));
        assertThrows(IllegalArgumentException.class, () -> BlockName.forRange(1, 2, "a".repeat(65)));
        assertThrows(IllegalArgumentException.class, () -> BlockName.forRange(1, 2, null));
    }

    @Test
    void newId_isValidAndDiffers() {
        String a = BlockName.newId();
        assertTrue(a.matches("[0-9a-z]{20}"), a);
        assertFalse(a.equals(BlockName.newId()));
        BlockName.forRange(0, 0, a);
    }

    @Test
    void newId_seededGenerator_isReproducible() {
        assertEquals(BlockName.newId(new SplittableRandom(42)), BlockName.newId(new SplittableRandom(42)));
    }

    @Test
    void parse_roundTrip_givesTheSameName() {
        Random random = new Random(1);
        for (int i = 0; i < 2_000; i++) {
            long a = random.nextLong();
            long b = random.nextLong();
            BlockName name = BlockName.forRange(Math.min(a, b), Math.max(a, b), BlockName.newId(random));
            assertEquals(Optional.of(name), BlockName.parse(name.toString()), name.toString());
        }
    }

    @Test
    void parse_junk_isNotABlock() {
        String good = "20261129T201500.123Z_20261129T202000.457Z_abc";
        assertTrue(BlockName.parse(good).isPresent());
        for (String junk : List.of(
                "", ".tmp-abc", ".tmp-del-abc", ".tmp-" + good, "wal", "spans", good + "/", " " + good,
                good + " ", good.toUpperCase(), good + "_x",
                "20261129T201500.123Z_20261129T202000.457Z_", // no id
                "20261129T201500.123Z_20261129T202000.457Z_ab-c", // id character
                "20261129T201500.123Z_20261129T202000.457Z_" + "a".repeat(65), // id too long
                "20261129T202000.457Z_20261129T201500.123Z_abc", // start after end
                "20261130T201500.123Z_20261129T202000.457Z_abc", // start after end by date
                "20261129T201500.12Z_20261129T202000.457Z_abc", // short millis
                "20261129T201500123Z_20261129T202000.457Z_abc", // no dot
                "20261129T201500.123_20261129T202000.457Z_abc", // no Z
                "20261329T201500.123Z_20261329T202000.457Z_abc", // month 13
                "20260230T201500.123Z_20260230T202000.457Z_abc", // February 30
                "20261129T246000.000Z_20261129T246000.000Z_abc", // hour 24
                "20261129T235960.000Z_20261129T235960.000Z_abc", // leap second
                "16770921T001243.144Z_20261129T202000.457Z_abc", // before any long nanosecond
                "20261129T201500.123Z_22620411T234716.856Z_abc", // after any long nanosecond
                "00000101T000000.000Z_00000101T000000.000Z_abc",
                "99991231T235959.999Z_99991231T235959.999Z_abc",
                "２0261129T201500.123Z_20261129T202000.457Z_abc")) { // a non-ASCII digit
            assertEquals(Optional.empty(), BlockName.parse(junk), junk);
        }
    }

    @Test
    void toString_lexicalOrder_isTimeOrder() {
        Random random = new Random(2);
        List<BlockName> names = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            long a = randomTime(random);
            long b = randomTime(random);
            names.add(BlockName.forRange(Math.min(a, b), Math.max(a, b), BlockName.newId(random)));
        }
        for (int i = 1; i < names.size(); i++) {
            BlockName x = names.get(i - 1);
            BlockName y = names.get(i);
            assertEquals(Integer.signum(x.compareTo(y)), Integer.signum(x.toString().compareTo(y.toString())),
                    x + " vs " + y);
            if (x.startUnixMilli() != y.startUnixMilli()) {
                assertEquals(Long.signum(x.startUnixMilli() - y.startUnixMilli()),
                        Integer.signum(x.toString().compareTo(y.toString())), x + " vs " + y);
            }
        }
        List<BlockName> byText = new ArrayList<>(names);
        byText.sort(Comparator.comparing(BlockName::toString));
        List<BlockName> byTime = new ArrayList<>(names);
        byTime.sort(Comparator.comparingLong(BlockName::startUnixNano)
                .thenComparingLong(BlockName::endUnixNano).thenComparing(BlockName::id));
        assertEquals(byTime, byText);
    }

    /** The one rule: pruning by name never skips a block that holds an event in the queried range. */
    @Test
    void mayOverlap_anyEventInRange_neverSkipped() {
        long seed = 20261129L;
        Random random = new Random(seed);
        for (int round = 0; round < 20_000; round++) {
            long[] events = new long[1 + random.nextInt(5)];
            for (int i = 0; i < events.length; i++) {
                events[i] = i > 0 && random.nextInt(4) == 0 ? events[i - 1] : randomTime(random);
            }
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (long t : events) {
                min = Math.min(min, t);
                max = Math.max(max, t);
            }
            BlockName name = BlockName.forRange(min, max, "a");
            String context = "seed " + seed + " round " + round + " name " + name;
            assertTrue(name.startUnixNano() <= min && max <= name.endUnixNano(), context);
            // Rounding widens by less than a millisecond each side, saturated or not.
            assertTrue(Math.subtractExact(min, name.startUnixNano()) < MS, context);
            assertTrue(Math.subtractExact(name.endUnixNano(), max) < MS, context);
            assertEquals(Optional.of(name), BlockName.parse(name.toString()), context);
            BlockName reparsed = BlockName.parse(name.toString()).orElseThrow();
            for (int q = 0; q < 20; q++) {
                long from = nearby(random, events);
                long to = nearby(random, events);
                if (from > to) {
                    long swap = from;
                    from = to;
                    to = swap;
                }
                for (long t : events) {
                    if (from <= t && t <= to) {
                        assertTrue(reparsed.mayOverlap(from, to),
                                context + " skipped event " + t + " in [" + from + ", " + to + "]");
                    }
                }
            }
        }
    }

    @Test
    void mayOverlap_rangesOutside_skipped() {
        BlockName name = BlockName.forRange(10 * MS + 5, 20 * MS + 5, "a"); // covers [10 ms, 21 ms]
        assertFalse(name.mayOverlap(0, 10 * MS - 1));
        assertTrue(name.mayOverlap(0, 10 * MS));
        assertTrue(name.mayOverlap(21 * MS, 30 * MS));
        assertFalse(name.mayOverlap(21 * MS + 1, 30 * MS));
        assertFalse(name.mayOverlap(15 * MS, 14 * MS)); // empty range
    }

    /** Event times that stress the rounding: boundaries, the epoch, the ends of the long range. */
    private static long randomTime(Random random) {
        long ms2026 = nanos("2026-11-29T20:15:00Z");
        switch (random.nextInt(10)) {
            case 0:
                return random.nextLong();
            case 1:
                return (random.nextLong() / MS) * MS; // exact millisecond, either sign
            case 2:
                return random.nextInt(5) - 2; // around zero
            case 3:
                return Long.MAX_VALUE - random.nextInt(3 * (int) MS);
            case 4:
                return Long.MIN_VALUE + random.nextInt(3 * (int) MS);
            case 5:
                return (random.nextInt(2001) - 1000) * MS + random.nextInt(3) - 1; // millisecond ±1 ns near 0
            case 6:
                return ms2026 + random.nextInt(1000) * MS + random.nextInt(3) - 1;
            default:
                return ms2026 + (long) (random.nextDouble() * 3_600_000_000_000L);
        }
    }

    /** A query bound: an event time, one nanosecond or millisecond beside it, or anything. */
    private static long nearby(Random random, long[] events) {
        long t = events[random.nextInt(events.length)];
        switch (random.nextInt(6)) {
            case 0:
                return t;
            case 1:
                return t == Long.MIN_VALUE ? t : t - 1;
            case 2:
                return t == Long.MAX_VALUE ? t : t + 1;
            case 3:
                return Math.floorDiv(t, MS) * MS;
            case 4:
                return randomTime(random);
            default:
                return random.nextLong();
        }
    }
}
