package dev.needle.blocks.index;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.DataFooter;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.BloomSidecar;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes the {@link BlockIndex} of a tenant's signal in a store: adds published blocks (ingest),
 * removes blocks about to be deleted (retention, recovery), and reconciles it with a listing (start).
 * Each change reads the index, changes it, and writes it back only if no other writer changed it in
 * between (compare-and-swap); a writer that lost the race reads again and retries, so no change is
 * lost. A missing or damaged index is rebuilt from a listing when blocks are added, and left alone
 * when blocks are removed (readers then list anyway).
 */
public final class BlockIndexWriter {

    /** The largest sidecar recorded in an entry: the largest file the sidecar format allows. */
    static final long MAX_SIDECAR_BYTES = BloomSidecar.HEADER_BYTES + 8L * BloomSidecar.MAX_WORDS;

    /** How many lost races a change survives before it gives up. */
    private static final int MAX_ATTEMPTS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(BlockIndexWriter.class);

    private final BlockStore store;

    /** A writer of {@code store}'s indexes; {@link BlockStore#keepsIndex} should be true. */
    public BlockIndexWriter(BlockStore store) {
        this.store = store;
    }

    /** What {@link #reconcile} changed: blocks listed but not indexed, and entries whose blocks are gone. */
    public record Reconciled(List<BlockName> added, List<BlockName> dropped) {
        /** Whether the index agreed with the listing. */
        public boolean agreed() {
            return added.isEmpty() && dropped.isEmpty();
        }
    }

    /**
     * Adds published {@code blocks} (all of {@code tenant}'s {@code signal}) to the index; builds the
     * index from a listing when there is none or it cannot be read.
     */
    public void add(TenantId tenant, Signal signal, Collection<BlockRef> blocks) throws IOException {
        List<BlockIndex.Entry> entries = new ArrayList<>();
        for (BlockRef block : blocks) {
            entries.add(entry(store, block));
        }
        update(tenant, signal, true, current -> {
            Set<BlockName> held = names(current);
            return entries.stream().allMatch(e -> held.contains(e.name())) ? current : current.with(entries);
        });
    }

    /**
     * Replaces the blocks {@code replaced} by the published block {@code replacing} (a compaction's
     * output) in one change: readers of the index see the old blocks or the new one, never both, never
     * neither. Builds the index from a listing when there is none or it cannot be read. Doing it again
     * changes nothing.
     */
    public void replace(TenantId tenant, Signal signal, Set<BlockName> replaced, BlockRef replacing) throws IOException {
        BlockIndex.Entry entry = entry(store, replacing);
        update(tenant, signal, true, current -> {
            Set<BlockName> held = names(current);
            boolean done = held.contains(entry.name()) && replaced.stream().noneMatch(held::contains);
            return done ? current : current.without(replaced).with(List.of(entry));
        });
    }

    /** Removes {@code blocks} from the index, before they are deleted, so that no index names a deleted block. */
    public void remove(TenantId tenant, Signal signal, Set<BlockName> blocks) throws IOException {
        update(tenant, signal, false, current ->
                names(current).stream().anyMatch(blocks::contains) ? current.without(blocks) : current);
    }

    /**
     * Makes the index agree with a listing: adds blocks listed but missing from it, drops entries of
     * blocks no longer listed (by a listing taken after the index was read, so that a block another
     * writer published and indexed meanwhile is kept). Builds it when there is none. No index is made
     * for a signal without blocks.
     */
    public Reconciled reconcile(TenantId tenant, Signal signal) throws IOException {
        Reconciled[] outcome = new Reconciled[1];
        List<BlockRef> listed = store.list(tenant, signal);
        if (listed.isEmpty() && store.readIndex(tenant, signal, null).isEmpty()) {
            return new Reconciled(List.of(), List.of());
        }
        Set<BlockName> listedNames = new HashSet<>();
        listed.forEach(ref -> listedNames.add(ref.name()));
        update(tenant, signal, true, current -> {
            Set<BlockName> held = names(current);
            List<BlockName> dropped = held.stream().filter(n -> !listedNames.contains(n)).sorted().toList();
            if (!dropped.isEmpty()) {
                // Listed again after this index was read: another node may have published and indexed
                // a block since the first listing, and only a block listed now is surely not gone.
                Set<BlockName> now = new HashSet<>();
                store.list(tenant, signal).forEach(ref -> now.add(ref.name()));
                dropped = dropped.stream().filter(n -> !now.contains(n)).toList();
            }
            List<BlockIndex.Entry> added = new ArrayList<>();
            for (BlockRef ref : listed) {
                if (!held.contains(ref.name())) {
                    added.add(entry(store, ref));
                }
            }
            outcome[0] = new Reconciled(added.stream().map(BlockIndex.Entry::name).toList(), dropped);
            return outcome[0].agreed() ? current : current.without(Set.copyOf(dropped)).with(added);
        });
        return outcome[0];
    }

    /** A change of an index, which may read the store. */
    private interface Change {
        BlockIndex apply(BlockIndex current) throws IOException;
    }

    private void update(TenantId tenant, Signal signal, boolean build, Change change) throws IOException {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Optional<IndexObject> read = store.readIndex(tenant, signal, null);
            BlockIndex current = null;
            if (read.isPresent()) {
                try {
                    current = BlockIndex.decode(read.get().bytes(), tenant, signal);
                } catch (BlockIndex.CorruptIndexException e) {
                    LOG.warn("the index of {}/{} cannot be read ({}); it is built again from a listing", tenant.value(),
                            signal.dirName(), e.getMessage());
                }
            }
            boolean rebuilt = current == null;
            if (rebuilt) {
                if (!build && read.isEmpty()) {
                    return;
                }
                current = fromListing(tenant, signal);
            }
            BlockIndex next = fitted(change.apply(current), BlockIndex.MAX_BODY_BYTES);
            if (next == current && !rebuilt) {
                return;
            }
            if (store.writeIndex(tenant, signal, next.encode(), read.map(IndexObject::token).orElse(null)) != null) {
                if (rebuilt) {
                    LOG.info("the index of {}/{} was built from a listing: {} {}", tenant.value(), signal.dirName(),
                            next.entries().size(), Units.plural(next.entries().size(), "block"));
                }
                return;
            }
            // Another writer was first: read its version and apply the change to it.
            try {
                Thread.sleep(ThreadLocalRandom.current().nextInt(1 + attempt));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while changing the index of " + tenant.value() + "/"
                        + signal.dirName(), e);
            }
        }
        throw new IOException("the index of " + tenant.value() + "/" + signal.dirName() + " was changed by other writers "
                + MAX_ATTEMPTS + " times in a row; not changed");
    }

    /**
     * {@code index}, or when its body would pass {@code maxBodyBytes} ({@link BlockIndex#MAX_BODY_BYTES}), with the
     * oldest blocks' filters (then meta.json copies and data.arrow footers) left out until it fits: readers scan
     * those blocks, which is slower but never wrong, instead of the index falling behind the blocks.
     */
    static BlockIndex fitted(BlockIndex index, long maxBodyBytes) {
        long over = index.bodyBytes() - maxBodyBytes;
        if (over <= 0) {
            return index;
        }
        List<BlockIndex.Entry> entries = new ArrayList<>(index.entries());
        int shed = 0;
        for (boolean metaToo : new boolean[] {false, true}) {
            for (int i = 0; i < entries.size() && over > 0; i++) {
                BlockIndex.Entry e = entries.get(i);
                long freed = e.traceIdx().length + e.attrIdx().length
                        + (metaToo ? e.meta().length + e.dataFooter().length : 0);
                if (freed > 0) {
                    entries.set(i, metaToo ? new BlockIndex.Entry(e.name(), new byte[0], new byte[0], new byte[0])
                            : new BlockIndex.Entry(e.name(), e.meta(), new byte[0], new byte[0], e.dataFooter()));
                    over -= freed;
                    shed++;
                }
            }
        }
        LOG.warn("the index of {}/{} would pass {} bytes; the files of its {} oldest blocks are left out of it, and"
                + " queries read those blocks' own", index.tenant().value(), index.signal().dirName(),
                maxBodyBytes, shed);
        return BlockIndex.of(index.tenant(), index.signal(), entries);
    }

    private BlockIndex fromListing(TenantId tenant, Signal signal) throws IOException {
        List<BlockIndex.Entry> entries = new ArrayList<>();
        for (BlockRef ref : store.list(tenant, signal)) {
            entries.add(entry(store, ref));
        }
        return BlockIndex.of(tenant, signal, entries);
    }

    private static Set<BlockName> names(BlockIndex index) {
        Set<BlockName> names = new HashSet<>();
        index.entries().forEach(e -> names.add(e.name()));
        return names;
    }

    /**
     * The entry of a published block: its meta.json, TRACE_IDX and ATTR_IDX as they are, and
     * data.arrow's footer ({@link DataFooter}); a file that is missing or larger than its format allows
     * is left out (empty), so readers read the block's own meta.json or data.arrow, or scan it.
     */
    public static BlockIndex.Entry entry(BlockStore store, BlockRef block) throws IOException {
        return new BlockIndex.Entry(block.name(), file(store, block, BlockLayout.META, BlockLayout.MAX_META_BYTES),
                file(store, block, BloomSidecar.TRACE_IDX, MAX_SIDECAR_BYTES),
                file(store, block, BloomSidecar.ATTR_IDX, MAX_SIDECAR_BYTES), dataFooter(store, block));
    }

    private static byte[] dataFooter(BlockStore store, BlockRef block) throws IOException {
        try (SeekableByteChannel data = store.open(block, BlockLayout.DATA)) {
            return DataFooter.read(data);
        } catch (NoSuchFileException e) {
            return new byte[0];
        }
    }

    private static byte[] file(BlockStore store, BlockRef block, String name, long max) throws IOException {
        try (InputStream in = Channels.newInputStream(store.open(block, name))) {
            byte[] bytes = in.readNBytes((int) max + 1);
            return bytes.length > max ? new byte[0] : bytes;
        } catch (NoSuchFileException e) {
            return new byte[0];
        }
    }
}
