package dev.needle.corpus;

/**
 * Seeds of the corpus's independent random streams: one per (purpose, index), so that any trace or
 * chunk can be made alone, in any order, on any thread, and come out the same.
 */
final class Seeds {

    static final long FLEET = 1;
    static final long TRACE_SIZES = 2;
    static final long TRACE = 3;
    static final long TRACE_ID = 4;
    static final long LOG_CHUNK = 5;
    static final long PROBES = 6;

    private Seeds() {
    }

    /** The seed of stream {@code purpose} number {@code index} of a corpus seeded with {@code seed}. */
    static long of(long seed, long purpose, long index) {
        return mix(mix(seed ^ 0x6e6565646c65L) + mix(purpose * 0x9e3779b97f4a7c15L) + index * 0xbf58476d1ce4e5b9L);
    }

    /** splitmix64's finalizer: every input bit reaches every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
