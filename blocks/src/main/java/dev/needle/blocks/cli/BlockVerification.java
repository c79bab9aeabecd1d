package dev.needle.blocks.cli;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * What {@code inspect --verify} finds in one block: meta.json checked against its own checksum (writer
 * version 4; one that fails it, or does not parse, is damage), every record batch of data.arrow read
 * whole, which checks it against its CRC-32C in meta.json before decoding it, and the sidecars checked
 * against their own CRC-32C, TAGS too (one that is there and does not decode is damage). A block of writer version 1 has no checksums: its batches are read and
 * their structure checked, and it counts as not verifiable. Every file needle wrote that does not
 * read back intact is damage, one entry each, so that all of it is reported, not the first.
 *
 * @param verdict  verified (every checksum matches), not verifiable (version 1, nothing damaged) or damaged
 * @param batches  the number of record batches data.arrow lists, 0 when it cannot be opened
 * @param damage   what is wrong, in file order
 */
record BlockVerification(Verdict verdict, int batches, List<Damage> damage) {

    /** The outcome for a block. */
    enum Verdict {
        /** Every batch and sidecar matches its checksum. */
        VERIFIED("verified"),
        /** Written by writer version 1, without checksums; nothing found wrong. */
        NOT_VERIFIABLE("not verifiable (writer version 1 wrote no checksums)"),
        /** Something is wrong: see the damage. */
        DAMAGED("damaged");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** One thing wrong: the file, the batch when it is about one (else null), and what. */
    record Damage(String file, Integer batch, String problem) {

        /** This damage as a report row, under {@code block} when not null. */
        Map<String, Object> row(String block) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (block != null) {
                m.put("block", block);
            }
            m.put("file", file);
            m.put("batch", batch);
            m.put("problem", problem);
            return m;
        }
    }

    BlockVerification {
        damage = List.copyOf(damage);
    }

    /** Reads every batch and sidecar of {@code ref}; never throws for what is in the files. */
    static BlockVerification of(FsBlockStore store, BlockRef ref, BufferAllocator allocator) throws IOException {
        List<Damage> damage = new ArrayList<>();
        BlockMeta meta;
        int batches = 0;
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            meta = reader.meta().orElse(null);
            if (meta == null) {
                damage.add(new Damage(BlockLayout.META, null, reader.metaProblem()));
            }
            batches = reader.batchCount();
            for (int b = 0; b < batches; b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    root.getRowCount();
                } catch (CorruptBlockException e) {
                    String prefix = "batch " + b + " ";
                    damage.add(new Damage(BlockLayout.DATA, b,
                            e.reason().startsWith(prefix) ? e.reason().substring(prefix.length()) : e.reason()));
                }
            }
        } catch (CorruptBlockException e) {
            damage.add(new Damage(BlockLayout.DATA, null, e.reason()));
            Report.MetaRead read = Report.readMeta(store.blockDir(ref));
            meta = read.meta();
            if (meta == null) {
                damage.add(new Damage(BlockLayout.META, null, read.problem()));
            }
        }
        checkSidecar(store, ref, BloomSidecar.TRACE_IDX, meta == null ? null : meta.traceIdxBytes(), damage);
        checkSidecar(store, ref, BloomSidecar.ATTR_IDX, meta == null ? null : meta.attrIdxBytes(), damage);
        // Blocks written before BATCH_ATTR_IDX existed lack it, and meta.json does not record it: only
        // a file that is there and does not verify is damage.
        checkSidecar(store, ref, BloomSidecar.BATCH_ATTR_IDX, 0L, damage);
        TagsCheck tags = TagsCheck.of(store.blockDir(ref));
        if (tags.problem() != null) {
            damage.add(new Damage(BlockTags.FILE, null, tags.problem()));
        }
        CountsCheck counts = CountsCheck.of(store.blockDir(ref));
        if (counts.problem() != null) {
            damage.add(new Damage(BlockCounts.FILE, null, counts.problem()));
        }
        Verdict verdict = !damage.isEmpty() ? Verdict.DAMAGED
                : meta.hasChecksums() ? Verdict.VERIFIED : Verdict.NOT_VERIFIABLE;
        return new BlockVerification(verdict, batches, damage);
    }

    /**
     * A sidecar that fails open is damage, but for a missing one that meta.json says was never
     * written (no keys, or too many): {@code metaBytes} is its size there, null when unknown.
     */
    private static void checkSidecar(FsBlockStore store, BlockRef ref, String name, Long metaBytes, List<Damage> damage) {
        Sidecar sidecar = BlockReader.readSidecar(store, ref, name);
        FailOpenReason reason = sidecar.failOpenReason().orElse(null);
        if (reason == null || reason == FailOpenReason.MISSING && (metaBytes == null || metaBytes == 0)) {
            return;
        }
        damage.add(new Damage(name, null, reason.label() + ": " + sidecar.detail()));
    }
}
