package dev.needle.query.engine;

import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.store.BlockName;

/**
 * Which records a search with a limit keeps: the newest (Tempo's searches, Loki's {@code backward})
 * or the oldest (Loki's {@code forward}). Each record has a rank, larger first, so that one code path
 * keeps the first {@code limit} either way: its time, or the time's complement ({@code ~t}, which
 * orders the other way without the overflow of {@code -t}).
 */
public enum Order {
    /** The newest records first. */
    NEWEST_FIRST,
    /** The oldest records first. */
    OLDEST_FIRST;

    /** The rank of a record of time {@code timeUnixNano}: larger comes first. */
    long rank(long timeUnixNano) {
        return this == NEWEST_FIRST ? timeUnixNano : ~timeUnixNano;
    }

    /** The largest rank a record of the block named {@code name} can have. */
    long bestRank(BlockName name) {
        return this == NEWEST_FIRST ? name.endUnixNano() : ~name.startUnixNano();
    }

    /** The largest rank a record of {@code batch} can have, by its zone maps. */
    long bestRank(BatchMeta batch) {
        return this == NEWEST_FIRST ? batch.maxTimeUnixNano() : ~batch.minTimeUnixNano();
    }
}
