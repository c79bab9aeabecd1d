package dev.needle.query.engine;

import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.store.BlockName;
import dev.needle.sidecar.BitSlicedFilters;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.KeyFilter;
import dev.needle.sidecar.Sidecar;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The TRACE_IDX and ATTR_IDX of every block an index holds, bit-sliced ({@link BitSlicedFilters}), with
 * the id each block has in them. Immutable; {@link #update} gives the filters of a newer index, decoding
 * and slicing only the blocks that are new to it.
 */
final class IndexedFilters {

    static final IndexedFilters EMPTY = new IndexedFilters(Map.of(), new String[0], BitSlicedFilters.empty(),
            BitSlicedFilters.empty());

    /** A block's filter as the index holds it, with the block's name as text (formatted once, for EXPLAIN). */
    record Held(String name, KeyFilter filter) {
    }

    /** A block's id in the filters, and its name as text. */
    private record Slot(int id, String name) {
    }

    /** Looked up once per block each time the index changes ({@link BlockCatalog} keeps the ids), never per query. */
    private final Map<BlockName, Slot> ids;
    /** Each id's block name as text; null for a free id. */
    private final String[] names;
    private final BitSlicedFilters traceIdx;
    private final BitSlicedFilters attrIdx;

    private IndexedFilters(Map<BlockName, Slot> ids, String[] names, BitSlicedFilters traceIdx,
                           BitSlicedFilters attrIdx) {
        this.ids = ids;
        this.names = names;
        this.traceIdx = traceIdx;
        this.attrIdx = attrIdx;
    }

    /** Block {@code name}'s id in the filters; -1 when they do not hold it. */
    int id(BlockName name) {
        Slot slot = ids.get(name);
        return slot == null ? -1 : slot.id();
    }

    /** One more than the largest id held. */
    int idLimit() {
        return names.length;
    }

    /**
     * The filters of {@code entries}: blocks that are no longer there are removed, new ones added under
     * the smallest free ids. A published block never changes, so a block held already is kept as it is.
     */
    IndexedFilters update(List<BlockIndex.Entry> entries) {
        Map<BlockName, Slot> next = new HashMap<>(entries.size() * 2);
        BitSet used = new BitSet();
        for (BlockIndex.Entry e : entries) {
            Slot slot = ids.get(e.name());
            if (slot != null) {
                next.put(e.name(), slot);
                used.set(slot.id());
            }
        }
        Set<Integer> removed = new HashSet<>();
        ids.forEach((name, slot) -> {
            if (!next.containsKey(name)) {
                removed.add(slot.id());
            }
        });
        Map<Integer, Sidecar> addedTraces = new HashMap<>();
        Map<Integer, Sidecar> addedAttrs = new HashMap<>();
        for (BlockIndex.Entry e : entries) {
            if (!next.containsKey(e.name())) {
                int id = used.nextClearBit(0);
                used.set(id);
                next.put(e.name(), new Slot(id, e.name().toString()));
                addedTraces.put(id, decode(e.traceIdx(), BloomSidecar.TRACE_IDX));
                addedAttrs.put(id, decode(e.attrIdx(), BloomSidecar.ATTR_IDX));
            }
        }
        boolean same = removed.isEmpty() && addedTraces.isEmpty();
        String[] names = new String[used.length()];
        next.values().forEach(slot -> names[slot.id()] = slot.name());
        return new IndexedFilters(Collections.unmodifiableMap(next), names, same ? traceIdx : traceIdx.with(addedTraces, removed),
                same ? attrIdx : attrIdx.with(addedAttrs, removed));
    }

    private static Sidecar decode(byte[] bytes, String file) {
        return bytes.length == 0
                ? Sidecar.failedOpen(FailOpenReason.MISSING, "the index records no " + file + " for this block", 0)
                : BloomSidecar.decode(bytes);
    }

    /** A lookup in the TRACE_IDX or the ATTR_IDX ({@code file}) of every block held, for one query. */
    Lookup lookup(String file) {
        return new Lookup(file.equals(BloomSidecar.TRACE_IDX) ? traceIdx.lookup() : attrIdx.lookup());
    }

    /** Heap held by the filters. */
    long sizeInBytes() {
        return traceIdx.sizeInBytes() + attrIdx.sizeInBytes() + 64L * ids.size();
    }

    /** One query's probes of one kind of filter: each key probed once over every block. Thread-safe. */
    final class Lookup {
        private final BitSlicedFilters.Lookup probes;

        private Lookup(BitSlicedFilters.Lookup probes) {
            this.probes = probes;
        }

        /** What the filter of block {@code id} says, from the index; null for -1, a block the index does not hold. */
        Held block(int id) {
            return id < 0 ? null : new Held(names[id], probes.block(id));
        }

        /** The ids of the blocks whose filter may hold the key (h1, h2), or is failed open. */
        BitSlicedFilters.Candidates candidates(long h1, long h2) {
            return probes.candidates(h1, h2);
        }
    }
}
