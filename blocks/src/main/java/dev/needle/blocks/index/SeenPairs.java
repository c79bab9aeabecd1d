package dev.needle.blocks.index;

import java.util.Arrays;

/**
 * The (namespace, key, value) pairs {@link IndexedPairs} has passed on in one record batch: an
 * open-addressing table of 64-bit hashes with each pair's parts beside its hash, compared when the
 * hashes match, so that a pair met again costs one hash and one compare and allocates nothing. (A
 * {@code HashSet} of pair records allocated a record, a boxed value and a node for every pair of
 * every record, most of them repeats; it took a sixth of a server's CPU under ingest.)
 *
 * <p>A value is a string, or 64 bits for the other kinds: a long, a double's
 * {@link Double#doubleToLongBits} (so -0.0 and 0.0 differ and every NaN is one, as {@code Double}'s
 * equality has it), a boolean as 0 or 1. Emptied by {@link #clear} in constant time: a slot belongs
 * to the current batch only when its stamp is the current generation.
 */
final class SeenPairs {

    /** A value's kind. */
    static final byte STRING = 0;
    static final byte LONG = 1;
    static final byte DOUBLE = 2;
    static final byte BOOL = 3;

    private static final int INITIAL_SLOTS = 1024;

    private final int maxPairs;
    private long[] hashes;
    /** The generation in which each slot was filled; a slot of another generation is empty. */
    private int[] stamps;
    private String[] namespaces;
    private String[] keys;
    private String[] strings;
    private long[] bits;
    private byte[] kinds;
    private int size;
    private int generation = 1;

    /** A set that remembers at most {@code maxPairs} pairs a batch; past them, a pair not remembered counts as new. */
    SeenPairs(int maxPairs) {
        this.maxPairs = maxPairs;
        allocate(INITIAL_SLOTS);
    }

    /**
     * Whether the pair is new to this batch: true the first time (and it is remembered, while fewer
     * than the bound are), false when it was met before. {@code string} is the value of a
     * {@link #STRING}, {@code bits} that of the other kinds.
     */
    boolean firstSeen(String namespace, String key, byte kind, String string, long bits) {
        long hash = hash(namespace, key, kind, string, bits);
        int mask = hashes.length - 1;
        int slot = (int) hash & mask;
        while (stamps[slot] == generation) {
            if (hashes[slot] == hash && kinds[slot] == kind && this.bits[slot] == bits
                    && namespaces[slot].equals(namespace) && keys[slot].equals(key)
                    && (kind != STRING || strings[slot].equals(string))) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        if (size >= maxPairs) {
            return true;
        }
        put(slot, hash, namespace, key, kind, string, bits);
        if (++size * 2 > hashes.length) {
            grow();
        }
        return true;
    }

    /** Forgets every pair: the next batch starts empty. */
    void clear() {
        size = 0;
        if (generation == Integer.MAX_VALUE) {
            Arrays.fill(stamps, 0);
            generation = 0;
        }
        generation++;
    }

    private static long hash(String namespace, String key, byte kind, String string, long bits) {
        // String hashes are cached in the strings, and a request's records share their key strings.
        long h = (namespace.hashCode() * 31L + key.hashCode()) * 0x9E3779B97F4A7C15L;
        h += kind == STRING ? string.hashCode() : bits;
        h = (h ^ kind) * 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    private void put(int slot, long hash, String namespace, String key, byte kind, String string, long bits) {
        hashes[slot] = hash;
        stamps[slot] = generation;
        namespaces[slot] = namespace;
        keys[slot] = key;
        kinds[slot] = kind;
        strings[slot] = string;
        this.bits[slot] = bits;
    }

    private void grow() {
        long[] oldHashes = hashes;
        int[] oldStamps = stamps;
        String[] oldNamespaces = namespaces;
        String[] oldKeys = keys;
        String[] oldStrings = strings;
        long[] oldBits = bits;
        byte[] oldKinds = kinds;
        int oldGeneration = generation;
        allocate(oldHashes.length * 2);
        int mask = hashes.length - 1;
        for (int i = 0; i < oldHashes.length; i++) {
            if (oldStamps[i] == oldGeneration) {
                int slot = (int) oldHashes[i] & mask;
                while (stamps[slot] == generation) {
                    slot = (slot + 1) & mask;
                }
                put(slot, oldHashes[i], oldNamespaces[i], oldKeys[i], oldKinds[i], oldStrings[i], oldBits[i]);
            }
        }
    }

    private void allocate(int slots) {
        hashes = new long[slots];
        stamps = new int[slots];
        namespaces = new String[slots];
        keys = new String[slots];
        strings = new String[slots];
        bits = new long[slots];
        kinds = new byte[slots];
    }
}
