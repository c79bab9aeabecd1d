package dev.needle.blocks.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.DamagedBlocks;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.Version1Blocks;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code needle inspect block} on real blocks, checked against what the test wrote and decodes itself. */
class InspectBlockCommandTest {

    @TempDir
    Path data;

    private BufferAllocator allocator;
    private FsBlockStore store;
    private List<SpanRecord> spans;
    private WrittenBlock spansBlock;
    private Path spansDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void writeBlock() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(data);
        spans = new ArrayList<>(new RandomRecords(11).spans(2_500));
        SpanRecord s = spans.get(0);
        // One span with pairs whose canonical typing is known: 200.0 indexes as the int 200.
        spans.add(SpanRecord.builder().resource(s.resource()).scope(s.scope()).traceId(s.traceId()).spanId(s.spanId())
                .parentSpanId(s.parentSpanId()).name("checkout-known").kind(2)
                .startTimeUnixNano(s.startTimeUnixNano()).endTimeUnixNano(s.endTimeUnixNano())
                .attributes(List.of(new KeyValue("http.response.status_code", new AnyValue.Dbl(200.0)),
                        new KeyValue("sampling.ratio", new AnyValue.Dbl(0.25))))
                .build());
        spansBlock = new BlockWriter(store, allocator, 1000).writeSpans(TenantId.DEFAULT, spans);
        spansDir = store.blockDir(spansBlock.ref());
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    private int run(String... args) {
        var cli = InspectCommand.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void block_json_rowsAndBatchesMatchTheDecodedData() throws IOException {
        assertEquals(0, run("block", spansDir.toString(), "--json"), err.toString());
        String json = out.toString();
        long rows = 0;
        int batches;
        try (BlockReader reader = BlockReader.open(store, spansBlock.ref(), allocator)) {
            batches = reader.batchCount();
            for (int b = 0; b < batches; b++) {
                try (VectorSchemaRoot root = reader.read(b, List.of(SpanColumns.DURATION))) {
                    rows += root.getRowCount();
                }
            }
        }
        assertEquals(spans.size(), rows);
        assertTrue(json.contains("\"rows\":" + rows + ","), json);
        assertTrue(json.contains("\"batch_count\":" + batches + ","), json);
        assertEquals(batches, json.split("\"first_row\":", -1).length - 1, json);
        assertTrue(json.contains("\"data_bytes\":" + Files.size(spansDir.resolve("data.arrow")) + ","), json);
        assertTrue(json.contains("\"block\":\"" + spansBlock.ref().name() + "\""), json);
        assertTrue(json.contains("\"tenant\":\"single-tenant\",\"signal\":\"spans\""), json);
        assertEquals(5, json.split("\"verdict\":\"verified\"", -1).length - 1, "three sidecars, TAGS, COUNTS: " + json);
        assertTrue(json.contains("\"version\":" + BlockTags.VERSION_CURRENT + ","), json);
        assertTrue(json.contains("\"events_and_links\":true"), json);
        assertTrue(json.contains("\"error\":null"), json);
    }

    @Test
    void block_human_alignedTablesOfFactsBatchesAndSidecars() {
        assertEquals(0, run("block", spansDir.toString()), err.toString());
        String text = out.toString();
        assertTrue(Pattern.compile("(?m)^rows +" + spans.size() + "$").matcher(text).find(), text);
        assertTrue(text.contains("batch  first row  rows  min time"), text);
        assertTrue(text.contains("min duration nano"), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("TRACE_IDX +\\d+ +verified +\\d+ +0\\.\\d+ +\\d+ +\\d+ +\\d+\\.\\d\\d% +-")),
                text);
        assertTrue(text.lines().anyMatch(l -> l.matches("BATCH_ATTR_IDX +\\d+ +verified +\\d+ +0\\.\\d+ +\\d+ +- +\\d+\\.\\d\\d% +-")),
                text);
        assertFalse(text.contains("error"), text);
    }

    @Test
    void traceIds_areTheDistinctIdsWritten_sorted() {
        assertEquals(0, run("block", spansDir.toString(), "--trace-ids"), err.toString());
        Set<String> written = spans.stream().map(s -> s.traceId().hex()).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(List.copyOf(written), out.toString().lines().toList());
    }

    @Test
    void traceIds_logs_leaveOutRecordsWithoutATrace() throws IOException {
        List<LogRecord> logs = new RandomRecords(12).logs(900);
        WrittenBlock block = new BlockWriter(store, allocator, 400).writeLogs(TenantId.of("team-a"), logs);
        assertEquals(0, run("block", store.blockDir(block.ref()).toString(), "--trace-ids"), err.toString());
        Set<String> written = logs.stream().filter(r -> !r.traceId().isEmpty()).map(r -> r.traceId().hex())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(List.copyOf(written), out.toString().lines().toList());
    }

    @Test
    void attrs_holdKnownPairsTypedAsTheSidecarTypesThem() {
        assertEquals(0, run("block", spansDir.toString(), "--attrs"), err.toString());
        List<String> lines = out.toString().lines().toList();
        assertTrue(lines.contains("{\"key\":\"span.http.response.status_code\",\"type\":\"n\",\"value\":200}"), out.toString());
        assertTrue(lines.contains("{\"key\":\"span.sampling.ratio\",\"type\":\"d\",\"value\":0.25}"), out.toString());
        assertTrue(lines.contains("{\"key\":\"intrinsic.name\",\"type\":\"s\",\"value\":\"checkout-known\"}"), out.toString());
        assertTrue(lines.contains("{\"key\":\"intrinsic.kind\",\"type\":\"n\",\"value\":2}"), out.toString());
        // Decoded from data.arrow, the distinct pairs are as many as the writer hashed into ATTR_IDX.
        assertEquals(spansBlock.meta().distinctAttributePairs(), lines.size());
    }

    @Test
    void block_corruptedSidecar_failsOpenWithCrc() throws IOException {
        Path traceIdx = spansDir.resolve("TRACE_IDX");
        byte[] bytes = Files.readAllBytes(traceIdx);
        bytes[bytes.length - 1] ^= 0x10;
        Files.write(traceIdx, bytes);
        assertEquals(0, run("block", spansDir.toString()), err.toString());
        assertTrue(out.toString().contains("failed open: crc"), out.toString());
        assertTrue(out.toString().contains("checksum failed"), out.toString());
    }

    @Test
    void block_deletedData_exitsOneNamingTheBlockAndShowsTheMeta() throws IOException {
        Files.delete(spansDir.resolve("data.arrow"));
        assertEquals(1, run("block", spansDir.toString()));
        String text = out.toString();
        assertTrue(text.contains("block " + spansBlock.ref() + ": data.arrow is missing"), text);
        assertTrue(Pattern.compile("(?m)^rows +" + spans.size() + "$").matcher(text).find(), text);
        assertFalse(text.contains("Exception"), text);
        assertFalse(err.toString().contains("\tat "), err.toString());
    }

    @Test
    void traceIds_deletedData_exitsOneNamingTheBlock() throws IOException {
        Files.delete(spansDir.resolve("data.arrow"));
        assertEquals(1, run("block", spansDir.toString(), "--trace-ids"));
        assertTrue(err.toString().contains(spansBlock.ref().toString()), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void verify_intactBlock_verifiedAndExitsZero() {
        assertEquals(0, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("\"verification\":\"verified\",\"damage\":[]"), json);
        assertEquals(spansBlock.meta().batches().size(), json.split("\"crc32c\":\"0x", -1).length - 1, json);
    }

    @Test
    void verify_bitFlippedInABatchAndInASidecar_exitsOneListingBoth() throws IOException {
        DamagedBlocks.flipBitInBatch(spansDir, 1, allocator);
        DamagedBlocks.flipBit(spansDir.resolve("ATTR_IDX"), Files.size(spansDir.resolve("ATTR_IDX")) - 1);
        // Version 3 names the damaged column's checksum: which column depends on where the bit fell.
        String expected = "checksum failed: expected crc32c 0x";

        assertEquals(1, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("\"verification\":\"damaged\""), json);
        assertTrue(Pattern.compile("\\{\"file\":\"data\\.arrow\",\"batch\":1,\"problem\":\"[^\"]*"
                + Pattern.quote(expected)).matcher(json).find(), json);
        assertTrue(json.contains("{\"file\":\"ATTR_IDX\",\"batch\":null,\"problem\":\"crc: checksum failed"), json);
        assertEquals(2, json.split("\"file\":\"[^\"]*\",\"batch\"", -1).length - 1,
                "batches 0 and 2 and TRACE_IDX are intact: " + json);

        out.getBuffer().setLength(0);
        assertEquals(1, run("block", spansDir.toString(), "--verify"), err.toString());
        String text = out.toString();
        assertTrue(Pattern.compile("(?m)^verification +damaged$").matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^file +batch +problem$").matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^data\\.arrow +1 +.*" + Pattern.quote(expected)).matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^ATTR_IDX +- +crc: checksum failed").matcher(text).find(), text);
    }

    @Test
    void verify_batchAttrIdx_damagedIsDamage_missingIsABlockFromBeforeIt() throws IOException {
        Path batchIdx = spansDir.resolve("BATCH_ATTR_IDX");
        byte[] intact = Files.readAllBytes(batchIdx);
        DamagedBlocks.flipBit(batchIdx, intact.length - 1);
        assertEquals(1, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        assertTrue(out.toString().contains("{\"file\":\"BATCH_ATTR_IDX\",\"batch\":null,\"problem\":\"crc: checksum failed"),
                out.toString());

        Files.delete(batchIdx);
        out.getBuffer().setLength(0);
        assertEquals(0, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("\"verification\":\"verified\",\"damage\":[]"), json);
        assertTrue(json.contains("{\"sidecar\":\"BATCH_ATTR_IDX\",\"bytes\":0,\"verdict\":\"failed open: missing\""), json);
    }

    @Test
    void verify_metaJsonDigitChanged_exitsOneNamingTheChecksum() throws IOException {
        DamagedBlocks.changeDigit(spansDir.resolve("meta.json"), "maxTraceId");
        assertEquals(1, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("\"meta_problem\":\"corrupt meta.json: checksum failed: metaCrc32c is "), json);
        assertTrue(json.contains("\"verification\":\"damaged\",\"damage\":[{\"file\":\"meta.json\",\"batch\":null,"
                + "\"problem\":\"corrupt meta.json: checksum failed: metaCrc32c is "), json);
    }

    @Test
    void verify_counts_damagedIsDamage_missingIsNot() throws IOException {
        Path counts = spansDir.resolve(BlockCounts.FILE);
        DamagedBlocks.flipBit(counts, Files.size(counts) - 1);
        assertEquals(1, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("{\"file\":\"COUNTS\",\"batch\":null,\"problem\":\"COUNTS: checksum failed"), json);
        assertTrue(json.contains("\"rows\":null,\"groups\":null,\"verdict\":\"damaged: COUNTS: checksum failed"), json);

        Files.delete(counts);
        out.getBuffer().setLength(0);
        assertEquals(0, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        json = out.toString();
        assertTrue(json.contains("\"verification\":\"verified\",\"damage\":[]"), json);
        assertTrue(json.contains("\"verdict\":\"missing (metrics queries read the block)\""), json);
    }

    @Test
    void verify_tags_damagedIsDamage_missingIsNot() throws IOException {
        Path tags = spansDir.resolve(BlockTags.FILE);
        DamagedBlocks.flipBit(tags, Files.size(tags) - 1);
        assertEquals(1, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("{\"file\":\"TAGS\",\"batch\":null,\"problem\":\"TAGS: checksum failed"), json);
        assertTrue(json.contains("\"version\":null,\"keys\":null,\"events_and_links\":null,\"verdict\":\"damaged: "
                + "TAGS: checksum failed"), json);

        Files.delete(tags);
        out.getBuffer().setLength(0);
        assertEquals(0, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        json = out.toString();
        assertTrue(json.contains("\"verification\":\"verified\",\"damage\":[]"), json);
        assertTrue(json.contains("\"bytes\":0,\"version\":null"), json);
    }

    @Test
    void verify_blockOfWriterVersion1_notVerifiableAndExitsZero() throws IOException {
        Version1Blocks.downgrade(spansDir);
        assertEquals(0, run("block", spansDir.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("\"verification\":\"not verifiable (writer version 1 wrote no checksums)\""), json);
        assertTrue(json.contains("\"crc32c\":null"), json);
    }

    @Test
    void verify_withTraceIds_exitsTwo() {
        assertEquals(2, run("block", spansDir.toString(), "--verify", "--trace-ids"));
        assertTrue(err.toString().contains("give one of --trace-ids, --attrs and --verify"), err.toString());
    }

    @Test
    void block_notABlockDirectory_exitsTwo() {
        assertEquals(2, run("block", data.toString()));
        assertTrue(err.toString().contains("is not <data>/<tenant>/<spans|logs>/<block>"), err.toString());
    }

    @Test
    void block_readOnly_leavesTmpDirsOfARunningWriter() throws IOException {
        Path staging = Files.createDirectories(spansDir.resolveSibling(".tmp-inflight"));
        assertEquals(0, run("block", spansDir.toString()), err.toString());
        assertTrue(Files.isDirectory(staging));
    }
}
