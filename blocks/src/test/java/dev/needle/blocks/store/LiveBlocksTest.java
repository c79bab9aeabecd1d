package dev.needle.blocks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LiveBlocksTest {

    /** The blocks whose range holds another's, pair by pair. */
    private static Set<BlockName> holdingAnother(List<BlockName> names) {
        Set<BlockName> holding = new HashSet<>();
        for (BlockName a : names) {
            for (BlockName b : names) {
                if (a != b && a.startUnixMilli() <= b.startUnixMilli() && a.endUnixMilli() >= b.endUnixMilli()) {
                    holding.add(a);
                }
            }
        }
        return holding;
    }

    @Test
    void candidates_randomNames_exactlyTheBlocksWhoseRangeHoldsAnother() {
        SplittableRandom random = new SplittableRandom(3);
        for (int round = 0; round < 500; round++) {
            List<BlockName> names = new ArrayList<>();
            int n = random.nextInt(12);
            for (int i = 0; i < n; i++) {
                long start = random.nextLong(20);
                names.add(new BlockName(start, start + random.nextLong(8), "b" + i));
            }
            assertEquals(holdingAnother(names), LiveBlocks.candidates(names), "names " + names);
        }
    }
}
