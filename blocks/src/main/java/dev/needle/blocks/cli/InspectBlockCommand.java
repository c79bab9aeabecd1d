package dev.needle.blocks.cli;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.sidecar.AttributeEncoding;
import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code needle inspect block DIR}: one block's facts, batches and zone maps, sidecar verdicts, or its keys. */
@Command(name = "block", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true,
        description = {"Show one block: its facts, batches and zone maps, and sidecar verdicts; or its keys.",
            "%nPrints the name, tenant, signal, time range, rows and bytes; every record batch with its zone maps "
                + "and checksum; and for TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX the verdict, fill, implied keys and share of the data's "
                + "bytes; for TAGS its version, key count and verdict. With --verify it also reads every batch whole, checks it against its CRC-32C in meta.json, "
                + "meta.json against its own (writer version 4), the sidecars and TAGS against theirs, and lists "
                + "everything damaged. Changes nothing on disk, so it is safe on a running server's "
                + "directory. Exits 1, after printing what it could read, when data.arrow cannot be read or "
                + "--verify finds damage."})
final class InspectBlockCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "DIR", description = "a block directory: <data>/<tenant>/<spans|logs>/<block>")
    Path dir;

    @Option(names = "--json", description = "print one JSON document instead of tables")
    boolean json;

    @Option(names = "--trace-ids", description = "print the distinct trace ids of data.arrow in hex, sorted, one a line")
    boolean traceIds;

    @Option(names = "--attrs", description = "print the distinct indexed attribute pairs of data.arrow, one JSON "
            + "object {\"key\":…,\"type\":\"s|n|d|b\",\"value\":…} a line, typed as ATTR_IDX types them")
    boolean attrs;

    @Option(names = "--verify", description = "read every record batch and check its CRC-32C, and the sidecars' "
            + "own; report every damaged batch or file, and exit 1 if there is any (a block of writer version 1 "
            + "has no checksums: not verifiable)")
    boolean verify;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (traceIds && attrs || verify && (traceIds || attrs)) {
            err.println("needle inspect block: give one of --trace-ids, --attrs and --verify");
            return 2;
        }
        Path blockDir = dir.toAbsolutePath().normalize();
        BlockRef ref;
        try {
            ref = refOf(blockDir);
        } catch (IllegalArgumentException e) {
            err.println("needle inspect block: " + dir + " is not <data>/<tenant>/<spans|logs>/<block>: " + e.getMessage());
            return 2;
        }
        if (!Files.isDirectory(blockDir)) {
            err.println("needle inspect block: no such block directory: " + dir);
            return 1;
        }
        FsBlockStore store = FsBlockStore.readOnly(blockDir.getParent().getParent().getParent());
        try (BufferAllocator allocator = new RootAllocator()) {
            if (traceIds || attrs) {
                return printKeys(store, ref, allocator, out, err);
            }
            Map<String, Object> report = report(store, ref, blockDir, allocator);
            BlockVerification verification = verify ? BlockVerification.of(store, ref, allocator) : null;
            if (verification != null) {
                report.put("verification", verification.verdict().toString());
                report.put("damage", verification.damage().stream().map(d -> d.row(null)).toList());
            }
            if (json) {
                out.println(Report.json(report));
                out.flush();
            } else {
                Report.print(report, out);
            }
            boolean damaged = verification != null && verification.verdict() == BlockVerification.Verdict.DAMAGED;
            return report.get("error") == null && !damaged ? 0 : 1;
        }
    }

    /** The block that {@code dir} is, from its last three names. */
    private static BlockRef refOf(Path dir) {
        if (dir.getNameCount() < 3) {
            throw new IllegalArgumentException("too few path elements");
        }
        String block = dir.getFileName().toString();
        BlockName name = BlockName.parse(block).orElseThrow(() -> new IllegalArgumentException(
                "'" + block + "' is not a block name (<start>_<end>_<id>)"));
        String signalDir = dir.getParent().getFileName().toString();
        Signal signal = Arrays.stream(Signal.values()).filter(s -> s.dirName().equals(signalDir)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("'" + signalDir + "' is neither spans nor logs"));
        return new BlockRef(TenantId.of(dir.getParent().getParent().getFileName().toString()), signal, name);
    }

    private static Map<String, Object> report(FsBlockStore store, BlockRef ref, Path blockDir, BufferAllocator allocator)
            throws IOException {
        BlockMeta meta;
        String metaProblem;
        Integer batchCount = null;
        String error = null;
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            meta = reader.meta().orElse(null);
            metaProblem = reader.metaProblem();
            batchCount = reader.batchCount();
        } catch (CorruptBlockException e) {
            error = e.getMessage();
            // The reader gives up before meta.json matters; read it alone so the report shows what it can.
            Report.MetaRead read = Report.readMeta(blockDir);
            meta = read.meta();
            metaProblem = read.problem();
        }
        long dataBytes = Report.size(blockDir.resolve(BlockLayout.DATA));

        Map<String, Object> r = new LinkedHashMap<>();
        r.put("block", ref.name().toString());
        r.put("tenant", ref.tenant().value());
        r.put("signal", ref.signal().dirName());
        r.put("name_start", Report.isoMilli(ref.name().startUnixMilli()));
        r.put("name_end", Report.isoMilli(ref.name().endUnixMilli()));
        r.put("min_time", meta == null ? null : Report.iso(meta.minTimeUnixNano()));
        r.put("max_time", meta == null ? null : Report.iso(meta.maxTimeUnixNano()));
        r.put("rows", meta == null ? null : meta.rows());
        r.put("data_bytes", dataBytes);
        r.put("batch_count", batchCount);
        r.put("distinct_trace_ids", meta == null ? null : meta.distinctTraceIds());
        r.put("distinct_attribute_pairs", meta == null ? null : meta.distinctAttributePairs());
        r.put("writer_version", meta == null ? null : meta.writerVersion());
        r.put("created", meta == null ? null : Report.isoMilli(meta.createdUnixMillis()));
        r.put("meta_problem", metaProblem);
        r.put("error", error);
        r.put("batches", meta == null ? List.of() : meta.batches().stream().map(b -> batch(b, ref.signal())).toList());
        r.put("sidecars", List.of(
                sidecar(blockDir, BloomSidecar.TRACE_IDX, dataBytes, meta == null ? null : (long) meta.distinctTraceIds()),
                sidecar(blockDir, BloomSidecar.ATTR_IDX, dataBytes, meta == null ? null : meta.distinctAttributePairs()),
                sidecar(blockDir, BloomSidecar.BATCH_ATTR_IDX, dataBytes, null)));
        r.put("tags", List.of(TagsCheck.of(blockDir).row()));
        r.put("counts", List.of(CountsCheck.of(blockDir).row()));
        return r;
    }

    private static Map<String, Object> batch(BatchMeta b, Signal signal) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch", b.index());
        m.put("first_row", b.firstRow());
        m.put("rows", b.rows());
        m.put("min_time", Report.iso(b.minTimeUnixNano()));
        m.put("max_time", Report.iso(b.maxTimeUnixNano()));
        m.put("min_trace_id", b.minTraceId() == null ? null : b.minTraceId().hex());
        m.put("max_trace_id", b.maxTraceId() == null ? null : b.maxTraceId().hex());
        m.put("trace_id_nulls", b.traceIdNullCount());
        if (signal == Signal.SPANS) {
            m.put("min_duration_nano", b.minDurationNano());
            m.put("max_duration_nano", b.maxDurationNano());
        } else {
            m.put("min_severity", b.minSeverity());
            m.put("max_severity", b.maxSeverity());
            m.put("severity_nulls", b.severityNullCount());
        }
        m.put("crc32c", b.crc32c() == null ? null : String.format("0x%08x", b.crc32c()));
        return m;
    }

    private static Map<String, Object> sidecar(Path blockDir, String name, long dataBytes, Long metaKeys)
            throws IOException {
        Path file = blockDir.resolve(name);
        Sidecar sidecar = BloomSidecar.read(file);
        BloomBits bits = sidecar.bits().orElse(null);
        long bytes = Report.size(file);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sidecar", name);
        m.put("bytes", bytes);
        m.put("verdict", sidecar.isVerified() ? "verified"
                : "failed open: " + sidecar.failOpenReason().orElseThrow().label());
        m.put("words", bits == null ? null : bits.words());
        m.put("fill", bits == null ? null : Math.round(bits.fillRatio() * 1e6) / 1e6);
        m.put("implied_keys", bits == null ? null : Math.round(bits.impliedKeys()));
        m.put("keys_in_meta", metaKeys);
        m.put("share_of_data", new Report.Share(bytes, dataBytes));
        m.put("detail", sidecar.isVerified() ? null : sidecar.detail());
        return m;
    }

    /** Prints the distinct trace ids or indexed pairs, decoded from data.arrow, in sorted order. */
    private int printKeys(FsBlockStore store, BlockRef ref, BufferAllocator allocator, PrintWriter out, PrintWriter err)
            throws IOException {
        Set<String> lines = new TreeSet<>();
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            IndexedPairs pairs = new IndexedPairs(new PairLines(lines));
            for (int b = 0; b < reader.batchCount(); b++) {
                if (traceIds) {
                    addTraceIds(reader, b, lines);
                } else {
                    addPairs(reader, b, pairs);
                }
            }
        } catch (CorruptBlockException e) {
            err.println("needle inspect block: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            // Arrow's bounds checks on buffers whose lengths lie: corrupt data, not a bug to trace.
            err.println("needle inspect block: block " + ref + ": cannot decode data.arrow: " + e);
            return 1;
        }
        lines.forEach(out::println);
        out.flush();
        return 0;
    }

    private static void addTraceIds(BlockReader reader, int batch, Set<String> hex) throws CorruptBlockException {
        String column = reader.block().signal() == Signal.SPANS ? SpanColumns.TRACE_ID : LogColumns.TRACE_ID;
        try (VectorSchemaRoot root = reader.read(batch, List.of(column))) {
            FixedSizeBinaryVector ids = (FixedSizeBinaryVector) root.getVector(column);
            for (int row = 0; row < root.getRowCount(); row++) {
                if (!ids.isNull(row)) { // logs without a trace
                    hex.add(HexFormat.of().formatHex(ids.get(row)));
                }
            }
        }
    }

    /** Feeds every row of the batch to {@code pairs}, which picks the pairs ATTR_IDX indexes. */
    private static void addPairs(BlockReader reader, int batch, IndexedPairs pairs) throws CorruptBlockException {
        try (VectorSchemaRoot root = reader.readAll(batch)) {
            if (reader.block().signal() == Signal.SPANS) {
                SpanColumns spans = new SpanColumns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    pairs.span(spans.read(row));
                }
            } else {
                LogColumns logs = new LogColumns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    pairs.log(logs.read(row));
                }
            }
        } catch (CorruptBlockException e) {
            throw e;
        } catch (IOException e) {
            throw new CorruptBlockException(reader.block(), "batch " + batch + ": " + e.getMessage(), e);
        }
    }

    /** Each pair as a JSON line, typed by its encoding: an integral double is {@code n}, NaN is never indexed. */
    private record PairLines(Set<String> lines) implements IndexedPairs.Sink {

        @Override
        public void string(String key, String value) {
            add(key, AttributeEncoding.TYPE_STRING, value);
        }

        @Override
        public void integer(String key, long value) {
            add(key, AttributeEncoding.TYPE_INT, value);
        }

        @Override
        public void dbl(String key, double value) {
            if (Double.isNaN(value)) {
                return;
            }
            if (AttributeEncoding.isIntegralInt64(value)) {
                add(key, AttributeEncoding.TYPE_INT, (long) value);
            } else {
                add(key, AttributeEncoding.TYPE_DOUBLE, value);
            }
        }

        @Override
        public void bool(String key, boolean value) {
            add(key, AttributeEncoding.TYPE_BOOL, value);
        }

        private void add(String key, byte type, Object value) {
            Map<String, Object> pair = new LinkedHashMap<>();
            pair.put("key", key);
            pair.put("type", String.valueOf((char) type));
            pair.put("value", value);
            lines.add(Report.json(pair));
        }
    }
}
