package dev.needle.blocks.store;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.CorruptMetaException;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.CorruptBlockException;
import dev.needle.blocks.read.FooterReplaces;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Which visible blocks answer queries: all but those that a visible block replaces (a compaction's
 * output names its inputs), so that between a compaction's publish and the deletion of its inputs every
 * record is read once. Thread-safe.
 *
 * <p>A replacing block's name range holds the range of every block it replaces (the compactor names it
 * so), so only a block whose range holds another visible block's can replace one: only those blocks'
 * lists are read, once each, since a published block never changes. After a compaction's inputs are
 * deleted no block holds another's range, and nothing is read at all.
 *
 * <p><b>Two copies, and damage.</b> A block names what it replaces twice: in meta.json
 * ({@link BlockMeta#replaces}) and in data.arrow's footer ({@link FooterReplaces}). A duplicate is a wrong
 * answer, and a block whose meta.json cannot be read still answers its records from data.arrow, so a
 * damaged meta.json must not make it replace nothing. For each block whose range holds another's:
 * <ul>
 *   <li>both copies readable and agreeing, or only meta.json from a writer before the footer's copy: it
 *       replaces what they name (settled: the compactor may delete those blocks);</li>
 *   <li>only one copy readable: it replaces what that one names (a block whose footer cannot be read
 *       answers nothing, and the query names it);</li>
 *   <li>both readable, disagreeing: it replaces what either names, and the blocks only one names are
 *       problems of the answer: left out, they may hold records the block lacks;</li>
 *   <li>neither says: the block itself is left out, a problem of the answer, and the blocks its range
 *       holds are read: its records may be any of theirs.</li>
 * </ul>
 * Whatever is damaged, no record is answered twice; an answer that may lack records names the blocks.
 * A list that could not be read for an I/O error is tried again.
 */
public final class LiveBlocks {

    /**
     * What a caller already holds of a block, from an index: its meta.json decoded (null when it holds
     * none or that cannot be read) and data.arrow's footer (empty when it holds none).
     */
    public record Held(BlockMeta meta, byte[] footer) {
        /** Nothing held: the block's own files are read. */
        public static final Held NOTHING = new Held(null, new byte[0]);
    }

    /**
     * What readers make of a tenant's signal's visible blocks.
     *
     * @param replacements each visible block that replaces visible others, with those it replaces (by either copy)
     * @param settled      those of {@code replacements} whose copies agree, or whose meta.json is the only copy
     *                     its writer wrote: only their replaced blocks may be deleted
     * @param unresolved   visible blocks whose range holds another's and whose list neither copy gives: their
     *                     records may be those of any block their range holds
     * @param leftOut      the visible blocks a reader leaves out: those replaced, and those unresolved
     * @param problems     one sentence per block left out on doubt, naming it: an answer without it is partial
     */
    public record View(Map<BlockName, List<BlockName>> replacements, Set<BlockName> settled, Set<BlockName> unresolved,
                       Set<BlockName> leftOut, List<String> problems) {
        /** Copies the collections. */
        public View {
            replacements = Collections.unmodifiableMap(new TreeMap<>(replacements));
            settled = Set.copyOf(settled);
            unresolved = Set.copyOf(unresolved);
            leftOut = Set.copyOf(leftOut);
            problems = List.copyOf(problems);
        }
    }

    /** A block's two lists: {@code meta} null when meta.json cannot be read, {@code footer} as read. */
    private record Copies(List<BlockName> meta, Footer footer, List<BlockName> footerNames) {
    }

    /** What data.arrow's footer says of the blocks a block replaces. */
    private enum Footer { LISTED, ABSENT, UNREADABLE }

    private final BlockStore store;
    /** Both lists of each candidate block, kept while the block is visible. */
    private final Map<BlockRef, Copies> copiesOf = new ConcurrentHashMap<>();

    /** Reads the blocks of {@code store}. */
    public LiveBlocks(BlockStore store) {
        this.store = store;
    }

    /**
     * What readers make of {@code visible} (all of {@code tenant}'s {@code signal} that a reader sees).
     * {@code held} gives what the caller holds of a block already (from the index): the block's own
     * files are read for what it lacks.
     *
     * @throws IOException when a list that may name replaced blocks cannot be read for now
     */
    public View view(TenantId tenant, Signal signal, Collection<BlockName> visible, Function<BlockName, Held> held)
            throws IOException {
        Set<BlockName> names = new HashSet<>(visible);
        copiesOf.keySet().removeIf(ref -> ref.tenant().equals(tenant) && ref.signal() == signal
                && !names.contains(ref.name()));
        Map<BlockName, List<BlockName>> replacements = new TreeMap<>();
        Set<BlockName> settled = new HashSet<>();
        Set<BlockName> leftOut = new HashSet<>();
        List<String> problems = new ArrayList<>();
        Set<BlockName> unresolved = new HashSet<>();
        for (BlockName candidate : new TreeSet<>(candidates(names))) {
            BlockRef ref = new BlockRef(tenant, signal, candidate);
            Copies copies = copies(ref, held.apply(candidate));
            if (copies.meta() == null && copies.footer() != Footer.LISTED) {
                unresolved.add(candidate);
                continue;
            }
            Set<BlockName> both = new TreeSet<>();
            Set<BlockName> either = new TreeSet<>();
            if (copies.meta() != null) {
                either.addAll(copies.meta());
            }
            if (copies.footer() == Footer.LISTED) {
                either.addAll(copies.footerNames());
                both.addAll(copies.footerNames());
                if (copies.meta() != null) {
                    both.retainAll(copies.meta());
                }
            } else {
                both.addAll(either);
            }
            List<BlockName> present = either.stream().filter(names::contains).toList();
            if (present.isEmpty()) {
                continue;
            }
            replacements.put(candidate, present);
            leftOut.addAll(present);
            List<BlockName> disputed = present.stream().filter(n -> !both.contains(n)).toList();
            if (!disputed.isEmpty()) {
                problems.add("block " + ref + ": its meta.json and data.arrow do not name the same blocks as those it"
                        + " replaces; left out, these may hold records it lacks: " + disputed);
            }
            if (copies.meta() != null && copies.footer() != Footer.UNREADABLE && disputed.isEmpty()) {
                settled.add(candidate);
            }
        }
        for (BlockName name : new TreeSet<>(unresolved)) {
            if (leftOut.add(name)) {
                problems.add("block " + new BlockRef(tenant, signal, name) + ": neither its meta.json nor data.arrow"
                        + " can be read for the blocks it replaces; it is left out, and the blocks its time range holds"
                        + " are read instead");
            }
        }
        return new View(replacements, settled, unresolved, leftOut, problems);
    }

    /**
     * The blocks among {@code visible} that another of them replaces (by either copy of its list; not
     * those left out because neither copy could be read).
     */
    public Set<BlockName> replaced(TenantId tenant, Signal signal, Collection<BlockName> visible) throws IOException {
        Set<BlockName> replaced = new HashSet<>();
        view(tenant, signal, visible, name -> Held.NOTHING).replacements().values().forEach(replaced::addAll);
        return replaced;
    }

    /** {@code blocks} without those a reader leaves out ({@link View#leftOut}), in their order. */
    public List<BlockRef> live(List<BlockRef> blocks) throws IOException {
        if (blocks.isEmpty()) {
            return blocks;
        }
        List<BlockName> names = blocks.stream().map(BlockRef::name).toList();
        Set<BlockName> leftOut = view(blocks.get(0).tenant(), blocks.get(0).signal(), names, name -> Held.NOTHING)
                .leftOut();
        return leftOut.isEmpty() ? blocks : blocks.stream().filter(b -> !leftOut.contains(b.name())).toList();
    }

    /** Both lists of {@code ref}: what {@code held} gives, the block's own files for the rest. */
    private Copies copies(BlockRef ref, Held held) throws IOException {
        Copies known = copiesOf.get(ref);
        if (known != null) {
            return known;
        }
        List<BlockName> meta = held.meta() != null ? held.meta().replaces() : readMeta(store, ref);
        Footer footer;
        Optional<List<BlockName>> names;
        try {
            names = held.footer().length > 0 ? FooterReplaces.of(ref, held.footer()) : FooterReplaces.read(store, ref);
            footer = names.isPresent() ? Footer.LISTED : Footer.ABSENT;
        } catch (CorruptBlockException e) {
            names = Optional.empty();
            footer = Footer.UNREADABLE;
        }
        Copies copies = new Copies(meta, footer, names.orElse(List.of()));
        copiesOf.put(ref, copies);
        return copies;
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

    /** What meta.json says {@code ref} replaces; null when it cannot be read. */
    private static List<BlockName> readMeta(BlockStore store, BlockRef ref) throws IOException {
        try (InputStream in = Channels.newInputStream(store.open(ref, BlockLayout.META))) {
            byte[] bytes = in.readNBytes((int) BlockLayout.MAX_META_BYTES + 1);
            return bytes.length > BlockLayout.MAX_META_BYTES ? null : BlockMetaJson.read(bytes).replaces();
        } catch (CorruptMetaException | NoSuchFileException e) {
            return null;
        }
    }
}
