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
 *
 * <p>A short string value is compared with a copy of its chars that the set keeps, not with the
 * instance first met: that instance belongs to another record of the batch, long out of the cache
 * when its pair comes again, and reading it back was a third of this set's time under ingest.
 */
final class SeenPairs {

    /** A value's kind. */
    static final byte STRING = 0;
    static final byte LONG = 1;
    static final byte DOUBLE = 2;
    static final byte BOOL = 3;

    private static final int INITIAL_SLOTS = 1024;
    /** String values up to this many chars are copied into {@link #chars}; longer ones are compared as held. */
    private static final int SHORT_CHARS = 64;

    private final int maxPairs;
    private long[] hashes;
    /** The generation in which each slot was filled; a slot of another generation is empty. */
    private int[] stamps;
    private String[] namespaces;
    private String[] keys;
    /** A long string value as met; null for a short one, whose chars are in {@link #chars}. */
    private String[] strings;
    /** A value's bits, or for a short string where its chars start in {@link #chars} (high half) and how many. */
    private long[] bits;
    private char[] chars = new char[1 << 12];
    private int charsUsed;
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
            if (hashes[slot] == hash && kinds[slot] == kind && holdsValue(slot, kind, string, bits)
                    && namespaces[slot].equals(namespace) && keys[slot].equals(key)) {
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
        charsUsed = 0;
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

    private boolean holdsValue(int slot, byte kind, String string, long bits) {
        if (kind != STRING) {
            return this.bits[slot] == bits;
        }
        if (strings[slot] != null) {
            return strings[slot].equals(string);
        }
        int length = (int) this.bits[slot];
        if (string.length() != length) {
            return false;
        }
        for (int i = 0, at = (int) (this.bits[slot] >>> 32); i < length; i++) {
            if (chars[at + i] != string.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Fills a slot; a short string's chars are copied, so {@code bits} is where they are. */
    private void put(int slot, long hash, String namespace, String key, byte kind, String string, long bits) {
        if (kind == STRING && string.length() <= SHORT_CHARS) {
            int length = string.length();
            if (charsUsed + length > chars.length) {
                chars = Arrays.copyOf(chars, 2 * chars.length);
            }
            string.getChars(0, length, chars, charsUsed);
            bits = (long) charsUsed << 32 | length;
            charsUsed += length;
            string = null;
        }
        place(slot, hash, namespace, key, kind, string, bits);
    }

    private void place(int slot, long hash, String namespace, String key, byte kind, String string, long bits) {
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
                place(slot, oldHashes[i], oldNamespaces[i], oldKeys[i], oldKinds[i], oldStrings[i], oldBits[i]);
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
