package dev.needle.sidecar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The filters of many blocks (one TRACE_IDX or one ATTR_IDX each), held so that a key is probed in all
 * of them at once; each block is named by a small non-negative id its caller chooses. Immutable: a
 * change gives a new instance that shares every segment the change did not touch.
 *
 * <p>A block whose filter could not be trusted (missing, damaged, unknown version) is held as "maybe"
 * for every key, with its {@link FailOpenReason}; it is never dropped. Every answer is the answer of
 * the block's own {@link Sidecar}: {@link #probe} names exactly the blocks whose sidecar's
 * {@link Sidecar#mayContain(long, long)} is true, and {@link #mayHoldDoubles} is the sidecar's.
 *
 * <p>Held in memory only, built from the sidecars a reader already has (those of the store's index):
 * not a file format. docs/FORMAT.md (INDEX) says why, with {@code BitSlicedProbeBenchmark}'s numbers.
 */
public final class BitSlicedFilters {

    /* Design (BitFunnel's bit-sliced signatures, Goodwin et al., SIGIR 2017). A key's probe positions
     * (h1 + i·h2) & (m - 1) depend only on the filter's size m (and k), so the filters of one size are
     * stored transposed: in a segment of B blocks, row p is a bitset of B bits holding bit p of every
     * block's filter. A probe computes the k positions once per size, ANDs k rows of B/64 words, and
     * the bits left set are the blocks that may hold the key: the cost grows with blocks/64 words, not
     * with blocks · k random reads.
     *
     * Segments hold at most SEGMENT_BLOCKS blocks. Adding blocks copies only the last segment of their
     * size (or starts one); removing a block clears its bit in its segment's live mask (a tombstone),
     * and a segment is rewritten without its dead columns once fewer than half are alive (dropped when
     * none is). A row is as wide as its segment's columns need (rounded up to 64), so a size held by
     * few blocks costs up to 64 times its filters; filters above MAX_SLICED_WORDS are therefore held
     * as they are and probed one by one: they belong to large blocks, which are few. */

    /** Blocks per segment: a row of a full segment is 16 words, two cache lines. */
    static final int SEGMENT_BLOCKS = 1024;
    /** Filters of more words than this (64 Kibit, some 6,500 keys) are probed one by one instead. */
    public static final int MAX_SLICED_WORDS = 1024;

    private static final BitSlicedFilters EMPTY = new BitSlicedFilters(Map.of(), Map.of(), Map.of(),
            new long[0], new long[0], new long[0], 0);

    /** The segments of one filter size and probe count, oldest first. */
    private record Group(int words, int k, List<Segment> segments) {
    }

    private final Map<Long, Group> groups;
    private final Map<Integer, BloomBits> loose;
    private final Map<Integer, FailOpenReason> failedOpen;
    /** Bitset over ids: held. */
    private final long[] held;
    /** Bitset over ids: held and failed open, so "maybe" for every key. */
    private final long[] alwaysMaybe;
    /** Bitset over ids: verified with HAS_DOUBLE clear. */
    private final long[] noDoubles;
    private final int size;

    private BitSlicedFilters(Map<Long, Group> groups, Map<Integer, BloomBits> loose,
                             Map<Integer, FailOpenReason> failedOpen, long[] held, long[] alwaysMaybe, long[] noDoubles,
                             int size) {
        this.groups = groups;
        this.loose = loose;
        this.failedOpen = failedOpen;
        this.held = held;
        this.alwaysMaybe = alwaysMaybe;
        this.noDoubles = noDoubles;
        this.size = size;
    }

    /** No filter at all. */
    public static BitSlicedFilters empty() {
        return EMPTY;
    }

    /** The filters of {@code sidecars}, keyed by block id. */
    public static BitSlicedFilters of(Map<Integer, ? extends Sidecar> sidecars) {
        return EMPTY.with(sidecars, Set.of());
    }

    /**
     * These filters without the blocks {@code removed} and with the blocks {@code added} (whose ids must
     * not be held, unless also removed). Rewrites only the segments the change touches.
     */
    public BitSlicedFilters with(Map<Integer, ? extends Sidecar> added, Set<Integer> removed) {
        Map<Long, Group> nextGroups = new HashMap<>(groups.size() * 2);
        for (Map.Entry<Long, Group> e : groups.entrySet()) {
            List<Segment> kept = new ArrayList<>();
            for (Segment s : e.getValue().segments()) {
                Segment after = removed.isEmpty() ? s : s.without(removed);
                if (after != null) {
                    kept.add(after);
                }
            }
            if (!kept.isEmpty()) {
                nextGroups.put(e.getKey(), new Group(e.getValue().words(), e.getValue().k(), kept));
            }
        }
        Map<Integer, BloomBits> nextLoose = new HashMap<>(loose);
        Map<Integer, FailOpenReason> nextFailed = new HashMap<>(failedOpen);
        nextLoose.keySet().removeAll(removed);
        nextFailed.keySet().removeAll(removed);
        int largest = -1;
        for (int id : added.keySet()) {
            if (id < 0) {
                throw new IllegalArgumentException("block id (" + id + ") must not be negative");
            }
            largest = Math.max(largest, id);
        }
        int length = Math.max(held.length, (largest >> 6) + 1);
        long[] nextHeld = Arrays.copyOf(held, length);
        long[] maybe = Arrays.copyOf(alwaysMaybe, length);
        long[] doubles = Arrays.copyOf(noDoubles, length);
        int nextSize = size;
        for (int id : removed) {
            if (holds(id)) {
                nextSize--;
                clear(nextHeld, id);
                clear(maybe, id);
                clear(doubles, id);
            }
        }
        Map<Long, List<Map.Entry<Integer, BloomBits>>> toSlice = new HashMap<>();
        for (Map.Entry<Integer, ? extends Sidecar> e : added.entrySet()) {
            int id = e.getKey();
            if (isSet(nextHeld, id)) {
                throw new IllegalArgumentException("block id " + id + " is held already");
            }
            nextHeld[id >> 6] |= 1L << id;
            nextSize++;
            Sidecar sidecar = e.getValue();
            Optional<BloomBits> bits = sidecar.bits();
            if (bits.isEmpty()) {
                nextFailed.put(id, sidecar.failOpenReason().orElseThrow());
                maybe[id >> 6] |= 1L << id;
                continue;
            }
            if (!sidecar.mayHoldDoubles()) {
                doubles[id >> 6] |= 1L << id;
            }
            if (bits.get().words() > MAX_SLICED_WORDS) {
                nextLoose.put(id, bits.get());
            } else {
                toSlice.computeIfAbsent(groupKey(bits.get().words(), bits.get().k()), k -> new ArrayList<>())
                        .add(Map.entry(id, bits.get()));
            }
        }
        toSlice.forEach((key, filters) -> {
            BloomBits first = filters.get(0).getValue();
            Group group = nextGroups.get(key);
            List<Segment> segments = group == null ? new ArrayList<>() : new ArrayList<>(group.segments());
            int next = 0;
            while (next < filters.size()) {
                Segment last = segments.isEmpty() ? null : segments.get(segments.size() - 1);
                if (last != null && last.columns() < SEGMENT_BLOCKS) {
                    int take = Math.min(SEGMENT_BLOCKS - last.columns(), filters.size() - next);
                    segments.set(segments.size() - 1, last.append(filters.subList(next, next + take)));
                    next += take;
                } else {
                    int take = Math.min(SEGMENT_BLOCKS, filters.size() - next);
                    segments.add(Segment.of(first.bits(), filters.subList(next, next + take)));
                    next += take;
                }
            }
            nextGroups.put(key, new Group(first.words(), first.k(), segments));
        });
        return new BitSlicedFilters(Map.copyOf(nextGroups), Map.copyOf(nextLoose), Map.copyOf(nextFailed),
                nextHeld, maybe, doubles, nextSize);
    }

    private static long groupKey(int words, int k) {
        return (long) words << 8 | k;
    }

    private static void clear(long[] bitset, int id) {
        if (id >= 0 && id >> 6 < bitset.length) {
            bitset[id >> 6] &= ~(1L << id);
        }
    }

    private static boolean isSet(long[] bitset, int id) {
        return id >= 0 && id >> 6 < bitset.length && (bitset[id >> 6] & 1L << id) != 0;
    }

    /** The number of blocks held. */
    public int size() {
        return size;
    }

    /** Whether block {@code id} is held. */
    public boolean holds(int id) {
        return isSet(held, id);
    }

    /** Why block {@code id}'s filter could not be trusted; empty when it was verified (or is not held). */
    public Optional<FailOpenReason> failOpenReason(int id) {
        return isSet(alwaysMaybe, id) ? Optional.of(failedOpen.get(id)) : Optional.empty();
    }

    /** As the block's sidecar answers {@link Sidecar#mayHoldDoubles()}; true for a block not held. */
    public boolean mayHoldDoubles(int id) {
        return !isSet(noDoubles, id);
    }

    /** The blocks that may hold trace id (lo, hi). */
    public Candidates probeTraceId(long lo, long hi) {
        return probe(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi));
    }

    /** The blocks that may hold the attribute pair. */
    public Candidates probe(AttributeHash pair) {
        return probe(pair.h1(), pair.h2());
    }

    /** The blocks that may hold the key (h1, h2): those whose filter may, and those failed open. */
    public Candidates probe(long h1, long h2) {
        long[] maybe = alwaysMaybe.clone();
        long bytes = 0;
        long[] and = new long[SEGMENT_BLOCKS / 64];
        for (Group g : groups.values()) {
            int[] rows = new int[g.k()];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = BloomBits.probe(h1, h2, i, g.words() * 64);
            }
            for (Segment s : g.segments()) {
                bytes += s.and(rows, and);
                s.collect(and, maybe);
            }
        }
        for (Map.Entry<Integer, BloomBits> e : loose.entrySet()) {
            bytes += 8L * e.getValue().k();
            if (e.getValue().mayContain(h1, h2)) {
                int id = e.getKey();
                maybe[id >> 6] |= 1L << id;
            }
        }
        return new Candidates(maybe, bytes);
    }

    /** A lookup that probes each key once over every block and then answers block by block. */
    public Lookup lookup() {
        return new Lookup(this);
    }

    /** Heap bytes held, roughly: the rows, live masks and ids of every segment, and the loose filters. */
    public long sizeInBytes() {
        long bytes = 16L * (held.length + alwaysMaybe.length + noDoubles.length) + 64L * failedOpen.size();
        for (Group g : groups.values()) {
            for (Segment s : g.segments()) {
                bytes += s.sizeInBytes();
            }
        }
        for (BloomBits b : loose.values()) {
            bytes += b.sizeInBytes();
        }
        return bytes;
    }

    /** The blocks one probe could not rule out, as a bitset over block ids. */
    public static final class Candidates {
        private final long[] maybe;
        private final long filterBytesRead;

        private Candidates(long[] maybe, long filterBytesRead) {
            this.maybe = maybe;
            this.filterBytesRead = filterBytesRead;
        }

        /** Whether block {@code id} may hold the key; false for a block not held. */
        public boolean mayContain(int id) {
            return isSet(maybe, id);
        }

        /** The smallest id at or above {@code from} that may hold the key; -1 when there is none. */
        public int next(int from) {
            int word = from >> 6;
            if (from < 0 || word >= maybe.length) {
                return -1;
            }
            long bits = maybe[word] & (-1L << from);
            while (true) {
                if (bits != 0) {
                    return (word << 6) + Long.numberOfTrailingZeros(bits);
                }
                if (++word == maybe.length) {
                    return -1;
                }
                bits = maybe[word];
            }
        }

        /** The number of blocks that may hold the key. */
        public int count() {
            int count = 0;
            for (long w : maybe) {
                count += Long.bitCount(w);
            }
            return count;
        }

        /** The bytes of filter bits the probe read: k rows of each segment, k words of each loose filter. */
        public long filterBytesRead() {
            return filterBytesRead;
        }
    }

    /**
     * The probes of one query: each key is probed over every block the first time a block is asked
     * about it, and its {@link Candidates} kept for the other blocks. Thread-safe.
     */
    public static final class Lookup {
        private record Key(long h1, long h2) {
        }

        private final BitSlicedFilters filters;
        private final Map<Key, Candidates> probed = new ConcurrentHashMap<>();
        /** The key asked last and its candidates: a trace lookup asks one key of every block. */
        private volatile Map.Entry<Key, Candidates> last;

        private Lookup(BitSlicedFilters filters) {
            this.filters = filters;
        }

        /** What block {@code id}'s filter says, answering as its {@link Sidecar} would. */
        public KeyFilter block(int id) {
            Optional<FailOpenReason> reason = filters.failOpenReason(id);
            boolean doubles = filters.mayHoldDoubles(id);
            return new KeyFilter() {
                @Override
                public boolean mayContain(long h1, long h2) {
                    return candidates(h1, h2).mayContain(id);
                }

                @Override
                public boolean mayHoldDoubles() {
                    return doubles;
                }

                @Override
                public Optional<FailOpenReason> failOpenReason() {
                    return reason;
                }
            };
        }

        /** The blocks that may hold the key (h1, h2), probed over every block the first time it is asked. */
        public Candidates candidates(long h1, long h2) {
            Map.Entry<Key, Candidates> known = last;
            if (known != null && known.getKey().h1() == h1 && known.getKey().h2() == h2) {
                return known.getValue();
            }
            Key key = new Key(h1, h2);
            Candidates found = probed.computeIfAbsent(key, k -> filters.probe(h1, h2));
            last = Map.entry(key, found);
            return found;
        }
    }

    /**
     * Up to {@link #SEGMENT_BLOCKS} filters of one size, transposed: column c is block {@code ids[c]},
     * row p (words {@code p·width .. p·width + width}) holds bit p of every column's filter.
     */
    private static final class Segment {
        private final int[] ids;
        private final long[] rows;
        private final long[] live;
        private final int width;
        private final int liveCount;

        private Segment(int[] ids, long[] rows, long[] live, int width, int liveCount) {
            this.ids = ids;
            this.rows = rows;
            this.live = live;
            this.width = width;
            this.liveCount = liveCount;
        }

        static Segment of(int bits, List<Map.Entry<Integer, BloomBits>> filters) {
            return new Segment(new int[0], new long[0], new long[0], 0, 0).append(bits, filters);
        }

        int columns() {
            return ids.length;
        }

        int bits() {
            return width == 0 ? 0 : rows.length / width;
        }

        Segment append(List<Map.Entry<Integer, BloomBits>> filters) {
            return append(bits(), filters);
        }

        /** This segment with {@code filters} (of {@code bits} bits) as new columns; copies the rows once. */
        private Segment append(int bits, List<Map.Entry<Integer, BloomBits>> filters) {
            int columns = ids.length + filters.size();
            int newWidth = (columns + 63) >> 6;
            long[] newRows = new long[bits * newWidth];
            for (int p = 0; p < bits && width > 0; p++) {
                System.arraycopy(rows, p * width, newRows, p * newWidth, width);
            }
            int[] newIds = Arrays.copyOf(ids, columns);
            long[] newLive = Arrays.copyOf(live, newWidth);
            for (int c = ids.length; c < columns; c++) {
                Map.Entry<Integer, BloomBits> filter = filters.get(c - ids.length);
                newIds[c] = filter.getKey();
                newLive[c >> 6] |= 1L << c;
                BloomBits b = filter.getValue();
                long column = 1L << c;
                int word = c >> 6;
                for (int w = 0; w < b.words(); w++) {
                    for (long x = b.word(w); x != 0; x &= x - 1) {
                        int p = (w << 6) + Long.numberOfTrailingZeros(x);
                        newRows[p * newWidth + word] |= column;
                    }
                }
            }
            return new Segment(newIds, newRows, newLive, newWidth, liveCount + filters.size());
        }

        /**
         * This segment with the columns of {@code removed} dead; null when none is left alive, and
         * rewritten with its live columns only once fewer than half are.
         */
        Segment without(Set<Integer> removed) {
            long[] newLive = null;
            int alive = liveCount;
            for (int c = 0; c < ids.length; c++) {
                if ((live[c >> 6] & 1L << c) != 0 && removed.contains(ids[c])) {
                    newLive = newLive == null ? live.clone() : newLive;
                    newLive[c >> 6] &= ~(1L << c);
                    alive--;
                }
            }
            if (newLive == null) {
                return this;
            }
            if (alive == 0) {
                return null;
            }
            Segment tombstoned = new Segment(ids, rows, newLive, width, alive);
            return alive * 2 < ids.length ? tombstoned.compacted() : tombstoned;
        }

        /** Only the live columns, in their order. */
        private Segment compacted() {
            int bits = bits();
            int newWidth = (liveCount + 63) >> 6;
            int[] newIds = new int[liveCount];
            long[] newRows = new long[bits * newWidth];
            long[] newLive = new long[newWidth];
            int to = 0;
            for (int c = 0; c < ids.length; c++) {
                if ((live[c >> 6] & 1L << c) == 0) {
                    continue;
                }
                newIds[to] = ids[c];
                newLive[to >> 6] |= 1L << to;
                for (int p = 0; p < bits; p++) {
                    if ((rows[p * width + (c >> 6)] & 1L << c) != 0) {
                        newRows[p * newWidth + (to >> 6)] |= 1L << to;
                    }
                }
                to++;
            }
            return new Segment(newIds, newRows, newLive, newWidth, liveCount);
        }

        /** Leaves in {@code and} the AND of the live mask and rows {@code at}; returns the bytes of rows read. */
        long and(int[] at, long[] and) {
            System.arraycopy(live, 0, and, 0, width);
            for (int p : at) {
                int base = p * width;
                for (int w = 0; w < width; w++) {
                    and[w] &= rows[base + w];
                }
            }
            return 8L * width * at.length;
        }

        /** Sets in {@code maybe} the block id of every column set in {@code and}. */
        void collect(long[] and, long[] maybe) {
            for (int w = 0; w < width; w++) {
                for (long x = and[w]; x != 0; x &= x - 1) {
                    int id = ids[(w << 6) + Long.numberOfTrailingZeros(x)];
                    maybe[id >> 6] |= 1L << id;
                }
            }
        }

        long sizeInBytes() {
            return 48L + 4L * ids.length + 8L * (rows.length + live.length);
        }
    }
}
