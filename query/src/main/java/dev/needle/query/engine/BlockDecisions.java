package dev.needle.query.engine;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.IntFunction;

/**
 * The decisions of a lookup, one per block, where one probe of the index's filters ruled most blocks
 * out at once: the decisions of the blocks it could not rule out are held, those of the others made
 * only when asked for (an EXPLAIN), so that a lookup's cost follows the blocks it reads, not the blocks
 * there are. Immutable; its elements are those the eager list would hold, in the same order.
 */
final class BlockDecisions extends AbstractList<BlockDecision> implements RandomAccess {

    private final int size;
    /** The indexes of the held decisions, ascending. */
    private final int[] heldAt;
    private final BlockDecision[] held;
    private final IntFunction<BlockDecision> ruledOut;
    private final BlockDecision.Step ruledOutBy;

    /**
     * {@code size} decisions: {@code held[i]} at index {@code heldAt[i]} (ascending), and at every
     * other index the decision {@code ruledOut} makes, each a block pruned by {@code ruledOutBy} with
     * nothing read.
     */
    BlockDecisions(int size, int[] heldAt, BlockDecision[] held, IntFunction<BlockDecision> ruledOut,
                   BlockDecision.Step ruledOutBy) {
        if (heldAt.length != held.length) {
            throw new IllegalArgumentException(heldAt.length + " indexes for " + held.length + " decisions");
        }
        this.size = size;
        this.heldAt = heldAt;
        this.held = held;
        this.ruledOut = ruledOut;
        this.ruledOutBy = ruledOutBy;
    }

    @Override
    public BlockDecision get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("decision " + index + " of " + size);
        }
        int at = Arrays.binarySearch(heldAt, index);
        return at >= 0 ? held[at] : ruledOut.apply(index);
    }

    @Override
    public int size() {
        return size;
    }

    /** The decisions held: those of the blocks the probe could not rule out. */
    List<BlockDecision> held() {
        return Arrays.asList(held);
    }

    /** How many blocks the probe ruled out, each pruned by {@link #ruledOutBy()} with nothing read. */
    int ruledOutCount() {
        return size - held.length;
    }

    /** The step that ruled out the blocks whose decisions are not held. */
    BlockDecision.Step ruledOutBy() {
        return ruledOutBy;
    }
}
