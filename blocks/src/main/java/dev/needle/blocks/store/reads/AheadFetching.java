package dev.needle.blocks.store.reads;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * A channel whose reads are requests (an object's ranged GETs) and that can make them ahead of the
 * reads, at once, holding their bytes until they are read: {@link CountedChannel#fetchAhead}.
 */
public interface AheadFetching {

    /** Fetches {@code ranges} at once on {@code pool} and holds them; returns once all are held, or throws the first failure. */
    void fetchAhead(List<ByteRange> ranges, ExecutorService pool) throws IOException;

    /** The bytes fetched ahead and not read yet. */
    long heldBytes();
}
