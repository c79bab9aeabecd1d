package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bit-sliced probing answers exactly as probing each block's own sidecar: for random filters of
 * mixed sizes and probe counts, some too large to slice, some damaged or missing, some with HAS_DOUBLE,
 * after blocks are added in batches and removed (tombstoned, segments rewritten and dropped).
 */
class BitSlicedFiltersTest {

    /** A block's sidecar as a reader decoded it, with keys that went into it. */
    private record Block(Sidecar sidecar, List<long[]> keys) {
    }

    private static Block randomBlock(SplittableRandom random) {
        int shape = random.nextInt(20);
        if (shape == 0) {
            return new Block(Sidecar.failedOpen(FailOpenReason.MISSING, "no file", 0), List.of());
        }
        // Mostly small filters, many of one size (so that a size spans segments), some above MAX_SLICED_WORDS.
        int words = shape < 12 ? 4 : shape < 18 ? 1 << random.nextInt(8) : 2 * BitSlicedFilters.MAX_SLICED_WORDS;
        int k = shape == 17 ? 1 + random.nextInt(BloomSidecar.MAX_K) : BloomSidecar.K;
        BloomBits bits = BloomBits.ofBits(64 * words, k);
        List<long[]> keys = new ArrayList<>();
        int n = 1 + random.nextInt(Math.min(1000, Math.max(1, 64 * words / 10)));
        for (int i = 0; i < n; i++) {
            long h1 = random.nextLong();
            long h2 = random.nextLong() | 1;
            bits.put(h1, h2);
            keys.add(new long[] {h1, h2});
        }
        byte[] file = BloomSidecar.encode(bits, random.nextInt(3) == 0 ? BloomSidecar.FLAG_HAS_DOUBLE : 0);
        if (shape == 1) {
            file[16 + random.nextInt(file.length - 16)] ^= (byte) (1 << random.nextInt(8));
        } else if (shape == 2) {
            file[4] = 2;
        } else if (shape == 3) {
            file = Arrays.copyOf(file, 16 + random.nextInt(file.length - 16));
        }
        Sidecar sidecar = BloomSidecar.decode(file);
        assertEquals(shape > 3, sidecar.isVerified(), sidecar::detail);
        return new Block(sidecar, keys);
    }

    /** Every held block answers every key as its sidecar does; blocks not held answer "no". */
    private static void assertSameAnswers(BitSlicedFilters filters, Map<Integer, Block> held, List<long[]> keys,
                                          int maxId) {
        assertEquals(held.size(), filters.size());
        BitSlicedFilters.Lookup lookup = filters.lookup();
        for (long[] key : keys) {
            BitSlicedFilters.Candidates candidates = filters.probe(key[0], key[1]);
            int count = 0;
            for (int id = 0; id <= maxId; id++) {
                Block block = held.get(id);
                boolean expected = block != null && block.sidecar().mayContain(key[0], key[1]);
                assertEquals(expected, candidates.mayContain(id), "block " + id);
                count += expected ? 1 : 0;
                if (block != null) {
                    assertEquals(expected, lookup.block(id).mayContain(key[0], key[1]), "block " + id);
                }
            }
            assertEquals(count, candidates.count());
            int listed = 0;
            for (int id = candidates.next(0); id >= 0; id = candidates.next(id + 1)) {
                assertTrue(candidates.mayContain(id), "block " + id);
                listed++;
            }
            assertEquals(count, listed);
            assertEquals(candidates.count(), lookup.candidates(key[0], key[1]).count());
        }
        for (int id = 0; id <= maxId; id++) {
            Block block = held.get(id);
            assertEquals(block != null, filters.holds(id), "block " + id);
            if (block != null) {
                KeyFilter view = lookup.block(id);
                assertEquals(block.sidecar().mayHoldDoubles(), view.mayHoldDoubles(), "block " + id);
                assertEquals(block.sidecar().failOpenReason(), view.failOpenReason(), "block " + id);
                assertEquals(block.sidecar().isVerified(), view.isVerified(), "block " + id);
            }
        }
    }

    private static List<long[]> probeKeys(SplittableRandom random, Map<Integer, Block> held) {
        List<long[]> keys = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            keys.add(new long[] {random.nextLong(), random.nextLong() | 1});
        }
        List<Block> blocks = new ArrayList<>(held.values());
        for (int i = 0; i < 25 && !blocks.isEmpty(); i++) {
            Block b = blocks.get(random.nextInt(blocks.size()));
            if (!b.keys().isEmpty()) {
                keys.add(b.keys().get(random.nextInt(b.keys().size())));
            }
        }
        return keys;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void probe_answersAsEachSidecar_throughAddsAndRemovals(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Map<Integer, Block> held = new HashMap<>();
        BitSlicedFilters filters = BitSlicedFilters.empty();
        int nextId = 0;
        for (int round = 0; round < 6; round++) {
            Map<Integer, Sidecar> added = new HashMap<>();
            int adds = round == 0 ? 1500 : random.nextInt(400);
            for (int i = 0; i < adds; i++) {
                Block b = randomBlock(random);
                held.put(nextId, b);
                added.put(nextId++, b.sidecar());
            }
            Set<Integer> removed = new HashSet<>();
            List<Integer> ids = new ArrayList<>(held.keySet());
            // Round 3 removes most of the blocks, so that segments are rewritten and dropped.
            int removals = round == 3 ? ids.size() * 3 / 4 : random.nextInt(200);
            for (int i = 0; i < removals; i++) {
                int id = ids.get(random.nextInt(ids.size()));
                if (!added.containsKey(id)) {
                    removed.add(id);
                }
            }
            held.keySet().removeAll(removed);
            filters = filters.with(added, removed);
            assertSameAnswers(filters, held, probeKeys(random, held), nextId);
            Map<Integer, Sidecar> all = new HashMap<>();
            held.forEach((id, b) -> all.put(id, b.sidecar()));
            assertSameAnswers(BitSlicedFilters.of(all), held, probeKeys(random, held), nextId);
        }
    }

    @Test
    void with_reusesTheIdOfARemovedBlock() {
        SplittableRandom random = new SplittableRandom(7);
        Block first = randomVerified(random);
        Block second = randomVerified(random);
        BitSlicedFilters one = BitSlicedFilters.of(Map.of(0, first.sidecar()));
        BitSlicedFilters other = one.with(Map.of(0, second.sidecar()), Set.of(0));
        assertSameAnswers(other, Map.of(0, second), List.of(first.keys().get(0), second.keys().get(0)), 0);
        assertSameAnswers(one, Map.of(0, first), List.of(first.keys().get(0), second.keys().get(0)), 0);
    }

    @Test
    void with_refusesAnIdHeldAlready() {
        Block block = randomVerified(new SplittableRandom(8));
        BitSlicedFilters filters = BitSlicedFilters.of(Map.of(3, block.sidecar()));
        assertThrows(IllegalArgumentException.class, () -> filters.with(Map.of(3, block.sidecar()), Set.of()));
        assertThrows(IllegalArgumentException.class, () -> filters.with(Map.of(-1, block.sidecar()), Set.of()));
    }

    @Test
    void probe_readsKRowsOfEachSegment() {
        SplittableRandom random = new SplittableRandom(9);
        Map<Integer, Sidecar> sidecars = new HashMap<>();
        // 1,030 filters of 4 words: one full segment (16 words a row) and one of 6 columns (1 word a row).
        for (int id = 0; id < BitSlicedFilters.SEGMENT_BLOCKS + 6; id++) {
            BloomBits bits = BloomBits.ofBits(256, BloomSidecar.K);
            bits.put(random.nextLong(), random.nextLong() | 1);
            sidecars.put(id, BloomSidecar.decode(BloomSidecar.encode(bits, 0)));
        }
        // One filter too large to slice: k words.
        sidecars.put(5000, BloomSidecar.decode(BloomSidecar.encode(
                BloomBits.ofBits(128 * BitSlicedFilters.MAX_SLICED_WORDS, BloomSidecar.K), 0)));
        BitSlicedFilters.Candidates c = BitSlicedFilters.of(sidecars).probeTraceId(1, 2);
        assertEquals(8L * BloomSidecar.K * (16 + 1) + 8L * BloomSidecar.K, c.filterBytesRead());
        assertFalse(c.mayContain(5000), "an empty filter rules every key out");
    }

    @Test
    void failedOpenBlock_isMaybeForEveryKey() {
        Sidecar missing = Sidecar.failedOpen(FailOpenReason.MISSING, "no file", 0);
        BitSlicedFilters filters = BitSlicedFilters.of(Map.of(70, missing));
        assertTrue(filters.probeTraceId(1, 2).mayContain(70));
        assertTrue(filters.probe(AttributeHash.ofString("k", "v")).mayContain(70));
        assertEquals(Optional.of(FailOpenReason.MISSING), filters.failOpenReason(70));
        assertTrue(filters.mayHoldDoubles(70));
    }

    private static Block randomVerified(SplittableRandom random) {
        Block b;
        do {
            b = randomBlock(random);
        } while (!b.sidecar().isVerified() || b.keys().isEmpty());
        return b;
    }
}
