package dev.needle.blocks.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The cache of ranges keeps what fits its bound, least recently used out first, per object version. */
class RangeCacheTest {

    @Test
    void put_pastTheBound_evictsTheLeastRecentlyUsed() {
        RangeCache cache = new RangeCache(800);
        cache.put("k", "e1", 0, new byte[100]);
        cache.put("k", "e1", 100, new byte[100]);
        assertArrayEquals(new byte[100], cache.get("k", "e1", 0, 100));
        for (int i = 2; i < 9; i++) {
            cache.put("k", "e1", i * 100L, new byte[100]);
        }
        assertEquals(800, cache.bytes());
        assertArrayEquals(new byte[100], cache.get("k", "e1", 0, 100), "used recently: kept");
        assertNull(cache.get("k", "e1", 100, 100), "the least recently used went first");
    }

    @Test
    void get_otherVersionOrRange_orTooLarge_misses() {
        RangeCache cache = new RangeCache(800);
        cache.put("k", "e1", 0, new byte[100]);
        assertNull(cache.get("k", "e2", 0, 100), "an object replaced under the same key");
        assertNull(cache.get("k", "e1", 0, 50));
        assertNull(cache.get("j", "e1", 0, 100));
        cache.put("k", "e1", 200, new byte[101]);
        assertNull(cache.get("k", "e1", 200, 101), "more than an eighth of the bound is not kept");
        assertEquals(100, cache.bytes());
        new RangeCache(0).put("k", "e1", 0, new byte[1]);
    }
}
