package dev.needle.blocks.store;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.CorruptMetaException;
import dev.needle.blocks.model.Signal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Which visible blocks answer queries: all but those that a visible block replaces (a compaction's
 * output names its inputs in {@link BlockMeta#replaces}), so that between a compaction's publish and
 * the deletion of its inputs every record is read once. Thread-safe.
 *
 * <p>A replacing block's name range holds the range of every block it replaces (the compactor names it
 * so), so only a block whose range holds another visible block's can replace one: only those blocks'
 * meta.json is read, once each, since a published block never changes. After a compaction's inputs
 * are deleted no block holds another's range, and nothing is read at all. A meta.json that cannot be
 * read replaces nothing (fails open); one that could not be read for an I/O error is tried again.
 */
public final class LiveBlocks {

    private final BlockStore store;
    /** What each candidate block replaces, kept while the block is visible. */
    private final Map<BlockRef, List<BlockName>> replacesOf = new ConcurrentHashMap<>();

    /** Reads the blocks of {@code store}. */
    public LiveBlocks(BlockStore store) {
        this.store = store;
    }

    /**
     * The blocks among {@code visible} (all of {@code tenant}'s {@code signal} that a reader sees) that
     * another of them replaces. {@code knownMeta} gives a block's meta where the caller holds it already
     * (from the index), or null: the block's own meta.json is read then.
     *
     * @throws IOException when a meta.json that may name replaced blocks cannot be read for now
     */
    public Set<BlockName> replaced(TenantId tenant, Signal signal, Collection<BlockName> visible,
                                   Function<BlockName, BlockMeta> knownMeta) throws IOException {
        Set<BlockName> replaced = new HashSet<>();
        replacements(tenant, signal, visible, knownMeta).values().forEach(replaced::addAll);
        return replaced;
    }

    /**
     * The blocks among {@code visible} that replace others of them, each with the blocks it replaces
     * that are still visible (as {@link #replaced}, by replacing block).
     */
    public Map<BlockName, List<BlockName>> replacements(TenantId tenant, Signal signal, Collection<BlockName> visible,
                                                        Function<BlockName, BlockMeta> knownMeta) throws IOException {
        Set<BlockName> names = new HashSet<>(visible);
        replacesOf.keySet().removeIf(ref -> ref.tenant().equals(tenant) && ref.signal() == signal
                && !names.contains(ref.name()));
        Map<BlockName, List<BlockName>> replacements = new TreeMap<>();
        for (BlockName candidate : candidates(names)) {
            BlockMeta meta = knownMeta.apply(candidate);
            List<BlockName> replaces = meta != null ? meta.replaces() : replacesOf(new BlockRef(tenant, signal, candidate));
            List<BlockName> present = replaces.stream().filter(names::contains).toList();
            if (!present.isEmpty()) {
                replacements.put(candidate, present);
            }
        }
        return replacements;
    }

    /** {@link #replaced} with no meta known beforehand. */
    public Set<BlockName> replaced(TenantId tenant, Signal signal, Collection<BlockName> visible) throws IOException {
        return replaced(tenant, signal, visible, name -> null);
    }

    /** {@code blocks} without those that another of them replaces, in their order. */
    public List<BlockRef> live(List<BlockRef> blocks) throws IOException {
        if (blocks.isEmpty()) {
            return blocks;
        }
        List<BlockName> names = blocks.stream().map(BlockRef::name).toList();
        Set<BlockName> replaced = replaced(blocks.get(0).tenant(), blocks.get(0).signal(), names);
        return replaced.isEmpty() ? blocks : blocks.stream().filter(b -> !replaced.contains(b.name())).toList();
    }

    private List<BlockName> replacesOf(BlockRef ref) throws IOException {
        List<BlockName> known = replacesOf.get(ref);
        if (known == null) {
            known = read(store, ref);
            replacesOf.put(ref, known);
        }
        return known;
    }

    /**
     * The blocks whose name range holds the range of another of {@code names}: only these can replace
     * one. Sorted by start, then by end descending, a block holds a later one's range exactly when some
     * later block ends no later than it does; a block of the very same range as the one before it holds
     * that one's.
     */
    static Set<BlockName> candidates(Collection<BlockName> names) {
        List<BlockName> sorted = new ArrayList<>(names);
        sorted.sort(Comparator.comparingLong(BlockName::startUnixMilli)
                .thenComparing(Comparator.comparingLong(BlockName::endUnixMilli).reversed())
                .thenComparing(BlockName::id));
        Set<BlockName> candidates = new HashSet<>();
        long minEndAfter = Long.MAX_VALUE;
        for (int i = sorted.size() - 1; i >= 0; i--) {
            BlockName b = sorted.get(i);
            boolean sameAsPrevious = i > 0 && sorted.get(i - 1).startUnixMilli() == b.startUnixMilli()
                    && sorted.get(i - 1).endUnixMilli() == b.endUnixMilli();
            if (minEndAfter <= b.endUnixMilli() || sameAsPrevious) {
                candidates.add(b);
            }
            minEndAfter = Math.min(minEndAfter, b.endUnixMilli());
        }
        return candidates;
    }

    private static List<BlockName> read(BlockStore store, BlockRef ref) throws IOException {
        try (InputStream in = Channels.newInputStream(store.open(ref, BlockLayout.META))) {
            byte[] bytes = in.readNBytes((int) BlockLayout.MAX_META_BYTES + 1);
            return bytes.length > BlockLayout.MAX_META_BYTES ? List.of() : BlockMetaJson.read(bytes).replaces();
        } catch (CorruptMetaException | NoSuchFileException e) {
            return List.of();
        }
    }
}
