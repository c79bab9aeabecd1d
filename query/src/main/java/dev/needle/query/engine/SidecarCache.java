package dev.needle.query.engine;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.read.BlockFacts;
import dev.needle.blocks.store.BlockRef;
import dev.needle.sidecar.Sidecar;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Decoded sidecars kept in memory, least recently used first out, bounded by bytes; beside them,
 * under the same bound, the {@link BlockFacts} of opened blocks (meta.json and the Arrow footer),
 * so that a block the sidecars cannot rule out is opened without reading either again. Keys name
 * the block (whose id is unique) and the file, so a deleted block's entries just age out. The filters
 * the engine holds of the stores' indexes count under the same bound ({@link #reserve}) without being
 * evicted, as they spare a GET per block: the cache keeps what they leave.
 */
public final class SidecarCache {

    private record Key(BlockRef block, String file) {
    }

    private record Entry(Object value, long bytes) {
    }

    private final long maxBytes;
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;
    private long reserved;
    private long hits;
    private long misses;

    /** A cache holding at most {@code maxBytes} of decoded sidecars and block facts; 0 disables it. */
    public SidecarCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The sidecar from the cache, or loaded (and cached) when absent; {@code hit[0]} says which. */
    public Sidecar get(BlockRef block, String file, Supplier<Sidecar> load, boolean[] hit) {
        Key key = new Key(block, file);
        synchronized (this) {
            Entry cached = entries.get(key);
            if (cached != null) {
                hits++;
                hit[0] = true;
                return (Sidecar) cached.value();
            }
            misses++;
        }
        hit[0] = false;
        Sidecar loaded = load.get();
        // Only verified files are kept: a missing or damaged one is read again next time, so that a
        // repaired file is noticed.
        if (loaded.isVerified()) {
            put(key, loaded, loaded.sizeInBytes());
        }
        return loaded;
    }

    /** The facts of {@code block} kept by {@link #keep}, or null. */
    synchronized BlockFacts facts(BlockRef block) {
        Entry cached = entries.get(new Key(block, BlockLayout.DATA));
        return cached == null ? null : (BlockFacts) cached.value();
    }

    /** Keeps what opening {@code block} learnt. */
    void keep(BlockRef block, BlockFacts facts) {
        put(new Key(block, BlockLayout.DATA), facts, facts.sizeInBytes());
    }

    /** Drops the facts of {@code block} kept by {@link #keep}: they did not read it. */
    synchronized void forgetFacts(BlockRef block) {
        Entry removed = entries.remove(new Key(block, BlockLayout.DATA));
        bytes -= removed == null ? 0 : removed.bytes();
    }

    private synchronized void put(Key key, Object value, long size) {
        if (size > maxBytes - reserved) {
            return;
        }
        Entry previous = entries.put(key, new Entry(value, size));
        bytes += size - (previous == null ? 0 : previous.bytes());
        evict();
    }

    /**
     * Counts {@code indexBytes}, the filters held of the stores' indexes, under the bound, and evicts
     * the least recently used entries until both fit; the indexes are held whole even when they alone
     * pass it.
     */
    synchronized void reserve(long indexBytes) {
        if (indexBytes != reserved) {
            reserved = indexBytes;
            evict();
        }
    }

    private void evict() {
        var it = entries.entrySet().iterator();
        while (bytes + reserved > maxBytes && it.hasNext()) {
            Map.Entry<Key, Entry> eldest = it.next();
            bytes -= eldest.getValue().bytes();
            it.remove();
        }
    }

    /**
     * Loads a sidecar into the cache ahead of any query, unless it is held already; evicts nothing.
     * Returns false, without loading, once the cache is full.
     */
    boolean preload(BlockRef block, String file, Supplier<Sidecar> load) {
        Key key = new Key(block, file);
        synchronized (this) {
            if (entries.containsKey(key)) {
                return true;
            }
            if (bytes + reserved >= maxBytes) {
                return false;
            }
        }
        Sidecar loaded = load.get();
        if (!loaded.isVerified()) {
            // Not kept, as in get(): the query that needs it reads it again and scans around it.
            return true;
        }
        synchronized (this) {
            if (bytes + reserved + loaded.sizeInBytes() > maxBytes) {
                return false;
            }
            if (entries.putIfAbsent(key, new Entry(loaded, loaded.sizeInBytes())) == null) {
                bytes += loaded.sizeInBytes();
            }
            return true;
        }
    }

    /** Bytes held now, the indexes' filters not included. */
    public synchronized long bytes() {
        return bytes;
    }

    /** Sidecar lookups answered from memory. */
    public synchronized long hits() {
        return hits;
    }

    /** Sidecar lookups that read the file. */
    public synchronized long misses() {
        return misses;
    }
}
