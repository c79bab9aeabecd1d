package dev.needle.blocks.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The open-addressing pair set answers as a {@code HashSet} of pairs does, batch after batch, and stops growing at its bound. */
class SeenPairsTest {

    /** A pair as the set it replaces held it: equal values, and doubles equal by their bits. */
    private record Pair(String namespace, String key, byte kind, String string, long bits) {
    }

    @Test
    void firstSeen_answersAsAHashSet_overRandomPairsAndBatches() {
        Random random = new Random(7);
        String[] namespaces = {"", IndexedPairs.RESOURCE, IndexedPairs.SCOPE, IndexedPairs.SPAN};
        SeenPairs seen = new SeenPairs(1_000_000);
        for (int batch = 0; batch < 6; batch++) {
            Set<Pair> expected = new HashSet<>();
            int pairs = 1 + random.nextInt(20_000);
            for (int i = 0; i < pairs; i++) {
                // Few distinct keys and values, so that most pairs repeat; new String instances, as decoding makes them.
                String namespace = namespaces[random.nextInt(namespaces.length)];
                String key = new String("k" + random.nextInt(30));
                byte kind = (byte) random.nextInt(4);
                int v = random.nextInt(200);
                Pair p = switch (kind) {
                    case SeenPairs.STRING -> new Pair(namespace, key, kind, new String("v" + v), 0);
                    case SeenPairs.LONG -> new Pair(namespace, key, kind, null, v - 100);
                    case SeenPairs.DOUBLE -> new Pair(namespace, key, kind, null, Double.doubleToLongBits(v / 4.0));
                    default -> new Pair(namespace, key, kind, null, v & 1);
                };
                assertEquals(expected.add(p), seen.firstSeen(p.namespace(), p.key(), p.kind(), p.string(), p.bits()),
                        () -> "batch " + p);
            }
            seen.clear();
        }
    }

    @Test
    void firstSeen_sameBitsOfAnotherKind_orSameValueUnderAnotherKey_isAnotherPair() {
        SeenPairs seen = new SeenPairs(100);
        assertTrue(seen.firstSeen("", "a", SeenPairs.LONG, null, 1));
        assertTrue(seen.firstSeen("", "a", SeenPairs.BOOL, null, 1));
        assertTrue(seen.firstSeen("span.", "a", SeenPairs.LONG, null, 1));
        assertTrue(seen.firstSeen("", "b", SeenPairs.LONG, null, 1));
        assertTrue(seen.firstSeen("", "a", SeenPairs.STRING, "1", 0));
        assertTrue(seen.firstSeen("", "a", SeenPairs.DOUBLE, null, Double.doubleToLongBits(-0.0)));
        assertTrue(seen.firstSeen("", "a", SeenPairs.DOUBLE, null, Double.doubleToLongBits(0.0)));
        assertFalse(seen.firstSeen("", "a", SeenPairs.LONG, null, 1));
        assertFalse(seen.firstSeen("", new String("a"), SeenPairs.STRING, new String("1"), 0));
    }

    @Test
    void firstSeen_pastItsBound_remembersNoMore_butStillKnowsWhatItHolds() {
        SeenPairs seen = new SeenPairs(3);
        for (int i = 0; i < 3; i++) {
            assertTrue(seen.firstSeen("", "k", SeenPairs.LONG, null, i));
        }

        assertTrue(seen.firstSeen("", "k", SeenPairs.LONG, null, 3));
        assertTrue(seen.firstSeen("", "k", SeenPairs.LONG, null, 3), "not remembered past the bound: new again");
        assertFalse(seen.firstSeen("", "k", SeenPairs.LONG, null, 2));

        seen.clear();
        assertTrue(seen.firstSeen("", "k", SeenPairs.LONG, null, 2), "a new batch starts empty");
    }
}
