package dev.needle.blocks.store.s3;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bytes of recent ranged GETs, least recently used first out, bounded by their total size: on
 * an object store a hot batch's header and columns (a trace looked up again, a search repeated)
 * cost no request the second time. A range is keyed by its object's key and ETag, so an object
 * replaced under the same key is never answered from the old one's bytes. A range larger than an
 * eighth of the bound is not kept, so that one large read cannot empty the cache. Thread-safe.
 *
 * <p>The local store keeps none: the operating system's page cache already holds hot files.
 */
final class RangeCache {

    /** One GET's range of one version of one object. */
    private record Key(String key, String etag, long from, int length) {
    }

    private final long maxBytes;
    private final LinkedHashMap<Key, byte[]> ranges = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;

    /** A cache of at most {@code maxBytes} bytes of ranges; 0 keeps nothing. */
    RangeCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The bytes of range {@code [from, from + length)} of object {@code key} at {@code etag}, or null. */
    synchronized byte[] get(String key, String etag, long from, int length) {
        return etag == null ? null : ranges.get(new Key(key, etag, from, length));
    }

    /** Keeps {@code value}, the bytes of that range, unless it is too large; callers never change it afterwards. */
    synchronized void put(String key, String etag, long from, byte[] value) {
        if (etag == null || value.length > maxBytes / 8) {
            return;
        }
        byte[] old = ranges.put(new Key(key, etag, from, value.length), value);
        bytes += value.length - (old == null ? 0 : old.length);
        Iterator<Map.Entry<Key, byte[]>> eldest = ranges.entrySet().iterator();
        while (bytes > maxBytes && eldest.hasNext()) {
            bytes -= eldest.next().getValue().length;
            eldest.remove();
        }
    }

    /** The bytes held. */
    synchronized long bytes() {
        return bytes;
    }
}
