package dev.needle.blocks.cli;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.CorruptMetaException;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.LiveBlocks;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code needle inspect store DATA}: per tenant and signal, what a data directory holds. */
@Command(name = "store", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true,
        description = {"Show a data directory: blocks, rows and bytes per tenant and signal.",
            "%nPer tenant and signal: the blocks that answer queries (and apart, those a compaction replaced and has not deleted yet), rows, data bytes, TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX bytes and their share "
                + "of the data, the time range the block names cover, and whether the index (INDEX) is there and "
                + "names exactly the listed blocks; then the .tmp-* directories (blocks being "
                + "written, or left by a crash) and blocks with a problem. Reads only block names, meta.json, the "
                + "index and file sizes, and changes nothing on disk. With --verify it also reads every record batch of every "
                + "block, checks it against its CRC-32C in meta.json, meta.json against its own (writer version 4), the "
                + "sidecars and TAGS against theirs, that the index reads and that its copies of each block's meta.json, "
                + "TRACE_IDX and ATTR_IDX are the block's, counts the blocks verified, not verifiable (writer version 1, "
                + "no checksums) and damaged, the damaged indexes, and the blocks by TAGS version, lists every damaged "
                + "batch or file, and exits 1 if there is any."})
final class InspectStoreCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "DATA", description = "the data directory, which holds <tenant>/<spans|logs>/<block>")
    Path data;

    @Option(names = "--json", description = "print one JSON document instead of tables")
    boolean json;

    @Option(names = "--verify", description = "read every record batch of every block and check its CRC-32C, and "
            + "the sidecars' own; report every damaged batch or file, and exit 1 if there is any")
    boolean verify;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        FsBlockStore store = FsBlockStore.readOnly(DataDirectory.requireReadable(data));
        Map<String, Object> r;
        boolean damaged;
        try (Verifier verifier = verify ? new Verifier(store, spec.commandLine().getErr()) : null) {
            r = report(store, verifier);
            damaged = verifier != null && (verifier.damaged > 0 || verifier.damagedIndexes > 0);
        }
        if (json) {
            out.println(Report.json(r));
            out.flush();
        } else {
            Report.print(r, out);
        }
        return damaged ? 1 : 0;
    }

    /** The report of every tenant and signal; with a {@code verifier} (else null), every block verified too. */
    private static Map<String, Object> report(FsBlockStore store, Verifier verifier) throws IOException {
        List<Map<String, Object>> signals = new ArrayList<>();
        List<String> tmpDirs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        long blocks = 0;
        long rows = 0;
        long dataBytes = 0;
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                List<BlockRef> refs = store.list(tenant, signal);
                List<Path> tmp = store.tmpDirs(tenant, signal);
                tmp.forEach(dir -> tmpDirs.add(store.root().relativize(dir).toString()));
                if (refs.isEmpty() && tmp.isEmpty()) {
                    continue;
                }
                // Blocks a compaction replaced answer nothing: counted apart until they are deleted.
                Set<BlockName> replaced = new LiveBlocks(store).replaced(tenant, signal,
                        refs.stream().map(BlockRef::name).toList());
                List<BlockRef> live = refs.stream().filter(ref -> !replaced.contains(ref.name())).toList();
                Map<String, Object> s = signal(store, tenant, signal, live, tmp.size(), problems);
                s.put("replaced", replaced.size());
                BlockIndex index = index(store, tenant, signal, refs, replaced, s, problems, verifier);
                if (verifier != null) {
                    verifier.verify(refs);
                    if (index != null) {
                        verifier.verifyIndex(index, refs);
                    }
                }
                signals.add(s);
                blocks += live.size();
                rows += (long) s.get("rows");
                dataBytes += (long) s.get("data_bytes");
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("data", store.root().toString());
        r.put("blocks", blocks);
        r.put("rows", rows);
        r.put("data_bytes", dataBytes);
        r.put("signals", signals);
        r.put("tmp_dirs", tmpDirs);
        List<String> damagedWal = store.damagedWalSegments();
        r.put("damaged_wal_segments", damagedWal.size());
        damagedWal.forEach(f -> problems.add(FsBlockStore.WAL_DIR + "/" + FsBlockStore.DAMAGED_WAL_DIR + "/" + f
                + ": a damaged write-ahead log segment; recovery replayed what came before the damage (see the server's log)"));
        r.put("problems", problems);
        if (verifier != null) {
            verifier.addTo(r);
        }
        return r;
    }

    /** Verifies block after block, counting verdicts, with a progress line on standard error every few seconds. */
    private static final class Verifier implements AutoCloseable {
        private static final long PROGRESS_NANOS = 2_000_000_000L;

        private final FsBlockStore store;
        private final PrintWriter err;
        private final BufferAllocator allocator = new RootAllocator();
        private final List<Map<String, Object>> damage = new ArrayList<>();
        private final long started = System.nanoTime();
        private long lastProgress = started;
        private long blocks;
        private long verified;
        private long notVerifiable;
        private long damaged;
        /** Indexes that are there and cannot be read: derived data, but damage all the same. */
        private long damagedIndexes;
        /** Blocks by the version of their TAGS file; "none" for blocks without one that reads. */
        private final Map<String, Long> tagsVersions = new TreeMap<>();

        Verifier(FsBlockStore store, PrintWriter err) {
            this.store = store;
            this.err = err;
        }

        void verify(List<BlockRef> refs) throws IOException {
            for (BlockRef ref : refs) {
                BlockVerification v = BlockVerification.of(store, ref, allocator);
                blocks++;
                switch (v.verdict()) {
                    case VERIFIED -> verified++;
                    case NOT_VERIFIABLE -> notVerifiable++;
                    case DAMAGED -> damaged++;
                }
                v.damage().forEach(d -> damage.add(d.row(ref.toString())));
                Integer tags = TagsCheck.of(store.blockDir(ref)).version();
                tagsVersions.merge(tags == null ? "none" : "v" + tags, 1L, Long::sum);
                if (System.nanoTime() - lastProgress > PROGRESS_NANOS) {
                    lastProgress = System.nanoTime();
                    err.printf("needle inspect store: checked %d blocks, %d damaged, in %d s%n", blocks, damaged,
                            (lastProgress - started) / 1_000_000_000L);
                    err.flush();
                }
            }
        }

        /** Checks that the index's copies of each listed block's files are the block's own. */
        void verifyIndex(BlockIndex index, List<BlockRef> refs) throws IOException {
            Map<BlockName, BlockRef> listed = new HashMap<>();
            refs.forEach(ref -> listed.put(ref.name(), ref));
            for (BlockIndex.Entry entry : index.entries()) {
                BlockRef ref = listed.get(entry.name());
                if (ref == null) {
                    continue;
                }
                BlockIndex.Entry own = BlockIndexWriter.entry(store, ref);
                List<String> differ = new ArrayList<>();
                String copyProblem = metaCopyProblem(entry.meta());
                if (copyProblem != null) {
                    // Readers check the copy as they check the block's own, and read the block's own when it fails.
                    differ.add("meta.json, which is damaged (" + copyProblem + ")");
                } else if (!Arrays.equals(own.meta(), entry.meta())) {
                    differ.add(BlockLayout.META);
                }
                if (!Arrays.equals(own.traceIdx(), entry.traceIdx())) {
                    differ.add(BloomSidecar.TRACE_IDX);
                }
                if (!Arrays.equals(own.attrIdx(), entry.attrIdx())) {
                    differ.add(BloomSidecar.ATTR_IDX);
                }
                // A footer not recorded (an index of version 1) is no copy, so it cannot differ.
                if (entry.dataFooter().length > 0 && !Arrays.equals(own.dataFooter(), entry.dataFooter())) {
                    differ.add(BlockLayout.DATA + "'s footer");
                }
                if (!differ.isEmpty()) {
                    damaged++;
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("block", ref.toString());
                    row.put("file", BlockStore.INDEX_OBJECT);
                    row.put("batch", null);
                    row.put("problem", "the index's copy of " + String.join(", ", differ) + " is not the block's");
                    damage.add(row);
                }
            }
        }

        /** What is wrong with the index's copy of a meta.json, null when it reads (or none is recorded). */
        private static String metaCopyProblem(byte[] meta) {
            if (meta.length == 0) {
                return null;
            }
            try {
                BlockMetaJson.read(meta);
                return null;
            } catch (CorruptMetaException e) {
                return e.getMessage();
            }
        }

        /** Records the index {@code where} as damaged: {@code problem} says how. */
        void indexDamaged(String where, String problem) {
            damagedIndexes++;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("block", null);
            row.put("file", where);
            row.put("batch", null);
            row.put("problem", problem);
            damage.add(row);
        }

        void addTo(Map<String, Object> report) {
            report.put("verified_blocks", verified);
            report.put("not_verifiable_blocks", notVerifiable);
            report.put("damaged_blocks", damaged);
            report.put("damage", damage);
            report.put("tags_versions", tagsVersions);
            report.put("damaged_indexes", damagedIndexes);
        }

        @Override
        public void close() {
            allocator.close();
        }
    }

    /**
     * Adds to {@code s} whether the signal's index is there (none, damaged, unreadable) and agrees with
     * the listing {@code refs} (blocks a compaction {@code replaced} may be left out of it);
     * disagreement and damage go to {@code problems}, and damage also to the {@code verifier} when there
     * is one. Returns the index, or null.
     */
    private static BlockIndex index(FsBlockStore store, TenantId tenant, Signal signal, List<BlockRef> refs,
                                    Set<BlockName> replaced, Map<String, Object> s, List<String> problems,
                                    Verifier verifier) {
        String where = tenant.value() + "/" + signal.dirName() + "/" + BlockStore.INDEX_OBJECT;
        // Every signal has the three keys, so that the table's columns line up.
        s.put("index", null);
        s.put("index_blocks", null);
        s.put("index_bytes", null);
        BlockIndex index;
        try {
            Optional<IndexObject> read = store.readIndex(tenant, signal, null);
            if (read.isEmpty()) {
                s.put("index", "none");
                return null;
            }
            index = BlockIndex.decode(read.get().bytes(), tenant, signal);
            s.put("index_bytes", (long) read.get().bytes().length);
        } catch (BlockIndex.CorruptIndexException e) {
            s.put("index", "damaged");
            problems.add(where + ": damaged (" + e.getMessage() + "); queries list the blocks instead");
            if (verifier != null) {
                verifier.indexDamaged(where, "damaged: " + e.getMessage());
            }
            return null;
        } catch (IOException e) {
            s.put("index", "unreadable");
            problems.add(where + ": cannot be read (" + e.getMessage() + "); queries list the blocks instead");
            if (verifier != null) {
                verifier.indexDamaged(where, "cannot be read: " + e.getMessage());
            }
            return null;
        }
        Set<BlockName> indexed = new HashSet<>();
        index.entries().forEach(e -> indexed.add(e.name()));
        Set<BlockName> listed = new HashSet<>();
        refs.forEach(ref -> listed.add(ref.name()));
        List<BlockName> lacks = listed.stream().filter(n -> !indexed.contains(n) && !replaced.contains(n)).sorted().toList();
        List<BlockName> gone = indexed.stream().filter(n -> !listed.contains(n)).sorted().toList();
        s.put("index", lacks.isEmpty() && gone.isEmpty() ? "agrees" : "disagrees");
        s.put("index_blocks", (long) indexed.size());
        if (!lacks.isEmpty()) {
            problems.add(where + ": lacks " + lacks.size() + " listed blocks (first " + lacks.get(0) + "); queries find "
                    + "them by listing, and the server's next start adds them");
        }
        if (!gone.isEmpty()) {
            problems.add(where + ": names " + gone.size() + " blocks that are not listed (first " + gone.get(0) + ");"
                    + " queries find them gone, and the server's next start drops them");
        }
        return index;
    }

    /** One tenant's signal; rows count the blocks whose meta.json could be read, the others go to {@code problems}. */
    private static Map<String, Object> signal(FsBlockStore store, TenantId tenant, Signal signal, List<BlockRef> refs,
                                              int tmpDirs, List<String> problems) throws IOException {
        long rows = 0;
        long dataBytes = 0;
        long traceIdxBytes = 0;
        long attrIdxBytes = 0;
        long batchAttrIdxBytes = 0;
        for (BlockRef ref : refs) {
            Path dir = store.blockDir(ref);
            Report.MetaRead read = Report.readMeta(dir);
            if (read.meta() != null) {
                rows += read.meta().rows();
            } else {
                problems.add(ref + ": " + read.problem());
            }
            if (!Files.exists(dir.resolve(BlockLayout.DATA))) {
                problems.add(ref + ": data.arrow is missing");
            }
            dataBytes += Report.size(dir.resolve(BlockLayout.DATA));
            traceIdxBytes += Report.size(dir.resolve(BloomSidecar.TRACE_IDX));
            attrIdxBytes += Report.size(dir.resolve(BloomSidecar.ATTR_IDX));
            batchAttrIdxBytes += Report.size(dir.resolve(BloomSidecar.BATCH_ATTR_IDX));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tenant", tenant.value());
        m.put("signal", signal.dirName());
        m.put("blocks", refs.size());
        m.put("rows", rows);
        m.put("data_bytes", dataBytes);
        m.put("trace_idx_bytes", traceIdxBytes);
        m.put("trace_idx_share", new Report.Share(traceIdxBytes, dataBytes));
        m.put("attr_idx_bytes", attrIdxBytes);
        m.put("attr_idx_share", new Report.Share(attrIdxBytes, dataBytes));
        m.put("batch_attr_idx_bytes", batchAttrIdxBytes);
        m.put("batch_attr_idx_share", new Report.Share(batchAttrIdxBytes, dataBytes));
        // Blocks are listed in time order, and every block's range lies inside its name's.
        long to = refs.stream().mapToLong(ref -> ref.name().endUnixMilli()).max().orElse(0);
        m.put("from", refs.isEmpty() ? null : Report.isoMilli(refs.get(0).name().startUnixMilli()));
        m.put("to", refs.isEmpty() ? null : Report.isoMilli(to));
        m.put("tmp_dirs", tmpDirs);
        return m;
    }
}
