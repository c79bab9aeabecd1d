package dev.needle.bench.batchidx;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.corpus.Manifest;
import dev.needle.sidecar.AttrIdxBuilder;
import dev.needle.sidecar.AttributeEncoding;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BatchAttrIdxBuilder;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * ATTR_IDX and BATCH_ATTR_IDX of a generated corpus at several bits per key: their bytes, and what
 * each size lets through for every attribute probe of the corpus's manifest — the blocks ATTR_IDX
 * cannot rule out, and of those the record batches BATCH_ATTR_IDX cannot rule out, which are what a
 * search reads. Both files are rebuilt from data.arrow's rows with the writer's {@link IndexedPairs}
 * (at 10 bits per key ATTR_IDX comes out byte for byte as written), so nothing is rewritten; with
 * {@code --write} the corpus is copied (data hard-linked) with the sidecars of one setting, to time
 * searches on it.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.needle.bench.batchidx.SidecarSizing CORPUS
 * [--write DIR ATTR_BITS BATCH_BITS]} (BATCH_BITS 0 writes no BATCH_ATTR_IDX: blocks as before it existed).
 */
public final class SidecarSizing {

    /** The bits per key compared, for either file. */
    static final int[] BITS = {10, 14, 20};
    /**
     * Absent values made from each absent value of the manifest (its string with {@code #i} appended,
     * its number moved far from any present one), so that the false positives of a filter are counted
     * over thousands of probes instead of a few dozen.
     */
    static final int VARIANTS = 500;

    private SidecarSizing() {
    }

    /** Prints the comparison, or writes one setting's copy of the corpus. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1 && !(args.length == 5 && args[1].equals("--write"))) {
            System.err.println("usage: SidecarSizing CORPUS [--write DIR ATTR_BITS BATCH_BITS]");
            System.exit(2);
        }
        Path corpus = Path.of(args[0]);
        if (args.length == 5) {
            write(corpus, Path.of(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        } else {
            compare(corpus, System.out);
        }
    }

    /** Prints, per signal, both files' bytes and what they let through at every bits per key of {@link #BITS}. */
    static void compare(Path corpus, PrintStream out) throws IOException {
        Manifest manifest = Manifest.readFrom(corpus);
        FsBlockStore store = FsBlockStore.readOnly(corpus);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (Signal signal : Signal.values()) {
                compare(store, allocator, signal, probes(manifest, signal), out);
            }
        }
    }

    /**
     * Writes {@code dir} as a copy of {@code corpus} (data.arrow, meta.json and TRACE_IDX hard-linked, the
     * manifest copied) with ATTR_IDX at {@code attrBits} and BATCH_ATTR_IDX at {@code batchBits} (0: none).
     */
    static void write(Path corpus, Path dir, int attrBits, int batchBits) throws IOException {
        FsBlockStore store = FsBlockStore.readOnly(corpus);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (Signal signal : Signal.values()) {
                for (BlockRef ref : store.list(TenantId.DEFAULT, signal)) {
                    Path from = store.blockDir(ref);
                    Path to = dir.resolve(store.root().relativize(from));
                    Files.createDirectories(to);
                    for (String file : List.of(BlockLayout.DATA, BlockLayout.META, BloomSidecar.TRACE_IDX)) {
                        if (Files.exists(from.resolve(file))) {
                            Files.createLink(to.resolve(file), from.resolve(file));
                        }
                    }
                    BlockPairs block = BlockPairs.read(store, ref, allocator);
                    Files.write(to.resolve(BloomSidecar.ATTR_IDX), block.attrIdx(attrBits));
                    if (batchBits > 0) {
                        Files.write(to.resolve(BloomSidecar.BATCH_ATTR_IDX), block.batchAttrIdx(batchBits));
                    }
                }
            }
        }
        Files.copy(corpus.resolve(Manifest.FILE), dir.resolve(Manifest.FILE));
    }

    /** One probe: its ATTR_IDX key, whether only a double can equal it, and whether it is present. */
    private record Probe(AttributeHash pair, boolean onlyDoubles, boolean present) {
    }

    private static List<Probe> probes(Manifest manifest, Signal signal) {
        List<Probe> probes = new ArrayList<>();
        for (boolean present : new boolean[] {true, false}) {
            for (Manifest.AttributeProbe p : present ? manifest.presentAttributes() : manifest.absentAttributes()) {
                if (!p.signal().equals(signal.dirName())) {
                    continue;
                }
                String key = p.scope() + "." + p.key();
                for (int i = 0; i < (present ? 1 : 1 + VARIANTS); i++) {
                    Probe probe = probe(key, p.value(), i, present);
                    if (probe != null) {
                        probes.add(probe);
                    }
                }
            }
        }
        return probes;
    }

    /** The probe of {@code key} = {@code v}, or for {@code variant} > 0 of an absent value made from it (null for a bool). */
    private static Probe probe(String key, AnyValue v, int variant, boolean present) {
        if (v instanceof AnyValue.Str s) {
            return new Probe(AttributeHash.ofString(key, variant == 0 ? s.value() : s.value() + "#" + variant), false,
                    present);
        } else if (v instanceof AnyValue.Int i) {
            return new Probe(AttributeHash.ofLong(key, i.value() + variant * 1_000_000_007L), false, present);
        } else if (v instanceof AnyValue.Dbl d) {
            double x = d.value() + variant * 1_000_003.5;
            return new Probe(AttributeHash.ofDouble(key, x), !AttributeEncoding.isIntegralInt64(x), present);
        } else if (v instanceof AnyValue.Bool b) {
            return variant == 0 ? new Probe(AttributeHash.ofBool(key, b.value()), false, present) : null;
        }
        return null;
    }

    /** A block's distinct pairs, in the whole block and per record batch, as the writer indexes them. */
    private record BlockPairs(BlockRef ref, Set<AttributeHash> block, List<Set<AttributeHash>> batches, boolean hasDouble) {

        static BlockPairs read(FsBlockStore store, BlockRef ref, BufferAllocator allocator) throws IOException {
            Set<AttributeHash> block = new HashSet<>();
            List<Set<AttributeHash>> batches = new ArrayList<>();
            boolean[] hasDouble = new boolean[1];
            try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                for (int b = 0; b < reader.batchCount(); b++) {
                    Set<AttributeHash> batch = new HashSet<>();
                    IndexedPairs pairs = new IndexedPairs(new IndexedPairs.Sink() {
                        @Override
                        public void string(String key, String value) {
                            batch.add(AttributeHash.ofString(key, value));
                        }

                        @Override
                        public void integer(String key, long value) {
                            batch.add(AttributeHash.ofLong(key, value));
                        }

                        @Override
                        public void dbl(String key, double value) {
                            hasDouble[0] = true;
                            AttributeHash hash = AttributeHash.ofDouble(key, value);
                            if (hash != null) {
                                batch.add(hash);
                            }
                        }

                        @Override
                        public void bool(String key, boolean value) {
                            batch.add(AttributeHash.ofBool(key, value));
                        }
                    });
                    try (VectorSchemaRoot root = reader.readAll(b)) {
                        if (ref.signal() == Signal.SPANS) {
                            SpanColumns columns = new SpanColumns(root);
                            for (int row = 0; row < root.getRowCount(); row++) {
                                pairs.span(columns.read(row));
                            }
                        } else {
                            LogColumns columns = new LogColumns(root);
                            for (int row = 0; row < root.getRowCount(); row++) {
                                pairs.log(columns.read(row));
                            }
                        }
                    }
                    block.addAll(batch);
                    batches.add(batch);
                }
            }
            return new BlockPairs(ref, block, batches, hasDouble[0]);
        }

        int batchKeys() {
            return batches.stream().mapToInt(Set::size).sum();
        }

        byte[] attrIdx(int bitsPerKey) {
            AttrIdxBuilder builder = new AttrIdxBuilder(block.size());
            block.forEach(builder::add);
            if (hasDouble) {
                builder.holdingDouble();
            }
            return builder.build(bitsPerKey).orElseThrow();
        }

        byte[] batchAttrIdx(int bitsPerKey) {
            BatchAttrIdxBuilder builder = new BatchAttrIdxBuilder(batchKeys());
            for (int b = 0; b < batches.size(); b++) {
                for (AttributeHash pair : batches.get(b)) {
                    builder.add(b, pair);
                }
            }
            if (hasDouble) {
                builder.holdingDouble();
            }
            return builder.build(bitsPerKey).orElseThrow();
        }
    }

    /** What one setting lets through over every block of a signal, summed over its probes. */
    private static final class Tally {
        long attrBytes;
        long batchBytes;
        long blocksThrough;
        long blocksWithABatchThrough;
        long batchesThrough;
        long batchesOfBlocksThrough;
        long batchesHolding;
    }

    private static void compare(FsBlockStore store, BufferAllocator allocator, Signal signal, List<Probe> probes,
                                PrintStream out) throws IOException {
        List<BlockRef> refs = store.list(TenantId.DEFAULT, signal);
        // [attr bits][batch bits][present?]
        Tally[][][] tallies = new Tally[BITS.length][BITS.length][2];
        for (Tally[][] a : tallies) {
            for (Tally[] b : a) {
                b[0] = new Tally();
                b[1] = new Tally();
            }
        }
        long pairs = 0;
        long batchKeys = 0;
        long batches = 0;
        for (BlockRef ref : refs) {
            BlockPairs block = BlockPairs.read(store, ref, allocator);
            pairs += block.block().size();
            batchKeys += block.batchKeys();
            batches += block.batches().size();
            byte[][] attrFiles = new byte[BITS.length][];
            byte[][] batchFiles = new byte[BITS.length][];
            for (int i = 0; i < BITS.length; i++) {
                attrFiles[i] = block.attrIdx(BITS[i]);
                batchFiles[i] = block.batchAttrIdx(BITS[i]);
            }
            for (int a = 0; a < BITS.length; a++) {
                Sidecar attrIdx = BloomSidecar.decode(attrFiles[a]);
                for (int b = 0; b < BITS.length; b++) {
                    Sidecar batchIdx = BloomSidecar.decode(batchFiles[b]);
                    for (Tally t : tallies[a][b]) {
                        t.attrBytes += attrFiles[a].length;
                        t.batchBytes += batchFiles[b].length;
                    }
                    for (Probe p : probes) {
                        Tally t = tallies[a][b][p.present() ? 1 : 0];
                        if (p.onlyDoubles() && !attrIdx.mayHoldDoubles() || !attrIdx.mayContain(p.pair())) {
                            continue;
                        }
                        t.blocksThrough++;
                        t.batchesOfBlocksThrough += block.batches().size();
                        long before = t.batchesThrough;
                        for (int i = 0; i < block.batches().size(); i++) {
                            t.batchesThrough += batchIdx.mayContain(p.pair(), i) ? 1 : 0;
                            t.batchesHolding += block.batches().get(i).contains(p.pair()) ? 1 : 0;
                        }
                        t.blocksWithABatchThrough += t.batchesThrough > before ? 1 : 0;
                    }
                }
            }
        }
        long absent = probes.stream().filter(p -> !p.present()).count();
        out.printf("%s: %d blocks, %d batches, %d distinct pairs (%.0f per block), %d distinct (pair, batch) keys "
                        + "(%.0f per block, %.2f per pair); %d present probes, %d absent (the manifest's and %d made "
                        + "from each)%n",
                signal.dirName(), refs.size(), batches, pairs, (double) pairs / refs.size(), batchKeys,
                (double) batchKeys / refs.size(), (double) batchKeys / pairs, probes.size() - absent, absent, VARIANTS);
        out.println("attr bits  batch bits  ATTR_IDX B/block  BATCH_ATTR_IDX B/block  | absent: blocks through  "
                + "of them with a batch through  batches through  holding | present: blocks through  batches of them  "
                + "batches through  batches holding");
        for (int a = 0; a < BITS.length; a++) {
            for (int b = 0; b < BITS.length; b++) {
                Tally no = tallies[a][b][0];
                Tally yes = tallies[a][b][1];
                out.printf("%9d  %10d  %16d  %22d  | %22d  %29d  %15d  %7d | %23d  %15d  %15d  %15d%n", BITS[a], BITS[b],
                        no.attrBytes / refs.size(), no.batchBytes / refs.size(), no.blocksThrough,
                        no.blocksWithABatchThrough, no.batchesThrough, no.batchesHolding, yes.blocksThrough,
                        yes.batchesOfBlocksThrough, yes.batchesThrough, yes.batchesHolding);
            }
        }
        out.println();
    }
}
