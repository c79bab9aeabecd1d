package dev.needle.ingest;

import dev.needle.blocks.cli.Units;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.head.CutIds;
import dev.needle.ingest.head.Head;
import dev.needle.ingest.head.Records;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.ingest.wal.WriteAheadLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link IngestPipeline#open} does before ingest takes data: replays the write-ahead log entries
 * that no published cut holds into the head, deletes the blocks of a cut a crash left partly published
 * (its records are written again from the log), and brings the store's index up to date with a listing.
 * Only the blocks of one writer's cuts ({@link CutIds}) are looked at, so that writers may share a store.
 */
final class IngestRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(IngestRecovery.class);

    private final BlockStore store;
    /** Whose cuts are recovered; "" for a store's one unnamed writer. */
    private final String writerId;
    /** Writes the store's index; null when the store keeps none. */
    private final BlockIndexWriter index;

    IngestRecovery(BlockStore store, String writerId, BlockIndexWriter index) {
        this.store = store;
        this.writerId = writerId;
        this.index = index;
    }

    /**
     * Adds to {@code head} the entries of {@code recovery} that no complete cut of this writer holds,
     * deleting the blocks of cuts that were only partly published (see {@link #completeCuts}).
     */
    void replay(WriteAheadLog.Recovery<Records<?>> recovery, Head head) throws IOException {
        Map<String, Long> published = completeCuts(recovery.log().checkpoint(), contiguousThrough(recovery));
        int replayed = 0;
        int skipped = 0;
        for (WalEntry entry : recovery.entries()) {
            if (entry.sequence() <= published.getOrDefault(IngestPipeline.key(entry.tenant(), entry.signal()), 0L)) {
                skipped++;
                continue;
            }
            head.add(entry, Records.decode(entry));
            replayed++;
        }
        LOG.info("recovery: {} write-ahead log {} replayed into the head, {} already in published blocks",
                replayed, Units.plural(replayed, "entry", "entries"), skipped);
    }

    /**
     * The last sequence up to which the log holds every entry past its checkpoint, without a gap (a
     * damaged segment leaves one): records of a cut beyond it can no longer be written again.
     */
    private static long contiguousThrough(WriteAheadLog.Recovery<Records<?>> recovery) {
        long through = recovery.log().checkpoint();
        for (WalEntry entry : recovery.entries()) {
            if (entry.sequence() == through + 1) {
                through = entry.sequence();
            } else if (entry.sequence() > through) {
                break;
            }
        }
        return through;
    }

    /**
     * For each tenant and signal, the largest sequence of a cut of this writer whose blocks are all published.
     *
     * <p>A cut the log was checkpointed past is whole even when some of its blocks are gone: they
     * were published, and retention (or compaction) removed them since. A cut past the checkpoint
     * with blocks missing was cut short by a crash while publishing: its blocks are deleted, and
     * the next cut writes its records again from the log — but only when the log still holds all of
     * them ({@code replayableThrough}); otherwise its blocks are kept, since a record stored twice
     * is better than one lost.
     */
    private Map<String, Long> completeCuts(long checkpoint, long replayableThrough) throws IOException {
        Map<String, Long> complete = new HashMap<>();
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                Map<Long, List<BlockRef>> byCut = new HashMap<>();
                Map<Long, Integer> counts = new HashMap<>();
                for (BlockRef ref : store.list(tenant, signal)) {
                    CutIds.parse(ref.name().id()).filter(c -> c.writer().equals(writerId)).ifPresent(c -> {
                        byCut.computeIfAbsent(c.sequence(), s -> new ArrayList<>()).add(ref);
                        counts.put(c.sequence(), c.count());
                    });
                }
                for (var e : byCut.entrySet()) {
                    long cut = e.getKey();
                    if (cut <= checkpoint || e.getValue().size() == counts.get(cut)) {
                        complete.merge(IngestPipeline.key(tenant, signal), cut, Math::max);
                    } else if (cut <= replayableThrough) {
                        if (index != null) {
                            Set<BlockName> names = new HashSet<>();
                            e.getValue().forEach(ref -> names.add(ref.name()));
                            index.remove(tenant, signal, names);
                        }
                        for (BlockRef partial : e.getValue()) {
                            LOG.info("recovery: deleting {}, one of {} blocks of a cut that was not fully published;"
                                    + " the write-ahead log holds its records", partial, counts.get(cut));
                            store.delete(partial);
                        }
                    } else {
                        LOG.warn("recovery: keeping {} of {} blocks of cut {} of {}: the write-ahead log no longer holds"
                                + " all of its records, so they are kept and the rest replayed (some may be stored twice)",
                                e.getValue().size(), counts.get(cut), cut, IngestPipeline.key(tenant, signal));
                    }
                }
            }
        }
        return complete;
    }

    /**
     * Makes each index agree with a listing of its blocks (builds it where there is none): a crash
     * between publishing a block and indexing it, or blocks written by another tool, leave it behind.
     * A failure is logged: readers list where the index falls short.
     */
    void reconcileIndex() {
        if (index == null) {
            return;
        }
        try {
            for (TenantId tenant : store.tenants()) {
                for (Signal signal : Signal.values()) {
                    BlockIndexWriter.Reconciled r = index.reconcile(tenant, signal);
                    if (!r.agreed()) {
                        int gone = r.dropped().size();
                        LOG.info("recovery: the index of {} now holds {} {} it lacked and no longer {} that {} gone",
                                IngestPipeline.key(tenant, signal), r.added().size(),
                                Units.plural(r.added().size(), "block"), gone, gone == 1 ? "is" : "are");
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("recovery: the index could not be brought up to date ({}); queries list blocks it lacks", e.toString());
        }
    }
}
