package dev.needle.blocks.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.DamagedBlocks;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.Version1Blocks;
import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code needle inspect store} on a data directory of real blocks, a leftover and a damaged block. */
class InspectStoreCommandTest {

    private static final TenantId ACME = TenantId.of("acme");

    @TempDir
    Path data;

    private BufferAllocator allocator;
    private List<WrittenBlock> acmeSpans;
    private WrittenBlock logs;
    private Path leftover;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void writeBlocks() throws IOException {
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(data);
        BlockWriter writer = new BlockWriter(store, allocator, 500);
        RandomRecords random = new RandomRecords(21);
        acmeSpans = List.of(writer.writeSpans(ACME, random.spans(700)), writer.writeSpans(ACME, random.spans(300)));
        logs = writer.writeLogs(TenantId.DEFAULT, random.logs(450));
        leftover = Files.createDirectories(data.resolve("acme/spans/.tmp-crashed"));
        Files.writeString(leftover.resolve("data.arrow"), "half a block");
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
    void store_index_saysWhetherItIsThereAndAgrees_andVerifyChecksItsCopies() throws IOException {
        FsBlockStore store = new FsBlockStore(data);
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());
        assertTrue(out.toString().contains("\"index\":\"none\""), out.toString());

        new BlockIndexWriter(store).reconcile(ACME, Signal.SPANS);
        out.getBuffer().setLength(0);
        assertEquals(0, run("store", data.toString(), "--json", "--verify"), err.toString());
        assertTrue(out.toString().contains("\"index\":\"agrees\",\"index_blocks\":2,"), out.toString());

        // An index naming a block that is gone, holding a copy of a TRACE_IDX that is not the block's, and
        // one of data.arrow's footer that is not either.
        BlockIndex index = BlockIndex.decode(store.readIndex(ACME, Signal.SPANS, null).orElseThrow().bytes(), ACME,
                Signal.SPANS);
        BlockIndex.Entry first = index.entries().get(0);
        BlockIndex.Entry forged = new BlockIndex.Entry(first.name(), first.meta(), new byte[] {1}, first.attrIdx());
        BlockIndex.Entry second = index.entries().get(1);
        byte[] footer = second.dataFooter().clone();
        footer[0] ^= 1;
        BlockIndex.Entry otherFooter = new BlockIndex.Entry(second.name(), second.meta(), second.traceIdx(),
                second.attrIdx(), footer);
        BlockIndex.Entry gone = new BlockIndex.Entry(BlockName.forRange(0, 1, "gone"), new byte[0], new byte[0],
                new byte[0]);
        store.writeIndex(ACME, Signal.SPANS, index.with(List.of(forged, otherFooter, gone)).encode(),
                store.readIndex(ACME, Signal.SPANS, null).orElseThrow().token());
        out.getBuffer().setLength(0);
        assertEquals(1, run("store", data.toString(), "--verify"), err.toString());
        String text = out.toString();
        assertTrue(text.contains("disagrees"), text);
        assertTrue(text.contains("acme/spans/INDEX: names 1 blocks that are not listed"), text);
        assertTrue(text.contains("the index's copy of TRACE_IDX is not the block's"), text);
        assertTrue(text.contains("the index's copy of data.arrow's footer is not the block's"), text);
    }

    @Test
    void store_afterACompaction_countsTheNewBlockAndTheReplacedApart_andTheIndexAgrees() throws IOException {
        FsBlockStore store = new FsBlockStore(data);
        new BlockIndexWriter(store).reconcile(ACME, Signal.SPANS);
        try (Compactor compactor = new Compactor(store, new Compactor.Options(2000, BlockWriter.Options.DEFAULT,
                Duration.ofHours(1), "", b -> true))) {
            assertEquals(1, compactor.run(false).merges().size());
        }
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("{\"tenant\":\"acme\",\"signal\":\"spans\",\"blocks\":1,\"rows\":1000,"), json);
        assertTrue(json.contains("\"replaced\":2,\"index\":\"agrees\",\"index_blocks\":1,"), json);
        assertTrue(json.contains("\"problems\":[]"), json);
    }

    @Test
    void store_json_countsPerTenantAndSignal() throws IOException {
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());
        String json = out.toString();
        long acmeBytes = dataBytes(acmeSpans.get(0)) + dataBytes(acmeSpans.get(1));
        assertTrue(json.contains("\"blocks\":3,\"rows\":1450,\"data_bytes\":" + (acmeBytes + dataBytes(logs)) + ","), json);
        assertTrue(json.contains("{\"tenant\":\"acme\",\"signal\":\"spans\",\"blocks\":2,\"rows\":1000,\"data_bytes\":"
                + acmeBytes + ","), json);
        assertTrue(json.contains("{\"tenant\":\"single-tenant\",\"signal\":\"logs\",\"blocks\":1,\"rows\":450,"), json);
        assertTrue(json.contains("\"from\":\"" + Instant.ofEpochMilli(acmeSpans.stream()
                .mapToLong(b -> b.ref().name().startUnixMilli()).min().orElseThrow()) + "\""), json);
        assertTrue(json.contains("\"tmp_dirs\":[\"acme/spans/.tmp-crashed\"]"), json);
        assertTrue(json.contains("\"problems\":[]"), json);
        long batchAttrIdxBytes = 0;
        for (WrittenBlock block : acmeSpans) {
            batchAttrIdxBytes += Files.size(new FsBlockStore(data).blockDir(block.ref()).resolve("BATCH_ATTR_IDX"));
        }
        assertTrue(json.contains("\"batch_attr_idx_bytes\":" + batchAttrIdxBytes + ","), json);
    }

    @Test
    void store_leavesTheLeftoverForTheServerToRemove() {
        assertEquals(0, run("store", data.toString()), err.toString());
        assertTrue(out.toString().contains("  acme/spans/.tmp-crashed"), out.toString());
        assertTrue(Files.exists(leftover.resolve("data.arrow")));
    }

    @Test
    void store_human_oneTableRowPerTenantAndSignal() {
        assertEquals(0, run("store", data.toString()), err.toString());
        String text = out.toString();
        assertTrue(text.contains("tenant         signal  blocks  rows  data bytes  trace idx bytes"), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("acme +spans +2 +1000 +\\d+ +\\d+ +\\d+\\.\\d\\d% .* 1 +0 +none +- +-")), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("single-tenant +logs +1 +450 .* 0 +0 +none +- +-")), text);
    }

    @Test
    void store_corruptMeta_isAProblemNotAFailure() throws IOException {
        Path meta = data.resolve(acmeSpans.get(1).ref().toString()).resolve("meta.json");
        Files.writeString(meta, "{not json");
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());
        assertTrue(out.toString().contains("\"rows\":700,"), out.toString());
        assertTrue(out.toString().contains(acmeSpans.get(1).ref() + ": corrupt meta.json: not valid JSON"), out.toString());
    }

    @Test
    void store_damagedWriteAheadLogSegments_areCountedAndListedAsProblems() throws IOException {
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());
        assertTrue(out.toString().contains("\"damaged_wal_segments\":0,"), out.toString());

        Path damaged = data.resolve("wal").resolve("damaged");
        Files.createDirectories(damaged);
        Files.write(damaged.resolve("00000000000000000007.wal"), new byte[] {1, 2, 3});
        out.getBuffer().setLength(0);
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());

        String json = out.toString();
        assertTrue(json.contains("\"damaged_wal_segments\":1,"), json);
        assertTrue(json.contains("\"problems\":[\"wal/damaged/00000000000000000007.wal: a damaged write-ahead log"
                + " segment;"), json);
    }

    @Test
    void verify_intactStore_countsEveryBlockVerifiedAndExitsZero() {
        assertEquals(0, run("store", data.toString(), "--verify", "--json"), err.toString());
        assertTrue(out.toString().contains("\"verified_blocks\":3,\"not_verifiable_blocks\":0,\"damaged_blocks\":0,"
                + "\"damage\":[],\"tags_versions\":{\"v2\":3}"), out.toString());
    }

    @Test
    void verify_damagedAndVersion1Blocks_countedListedAndExitsOne() throws IOException {
        Path version1 = data.resolve(acmeSpans.get(0).ref().toString());
        Path damaged = data.resolve(logs.ref().toString());
        Version1Blocks.downgrade(version1);
        DamagedBlocks.flipBitInBatch(damaged, 0, allocator);
        Files.delete(damaged.resolve("TRACE_IDX"));
        // Version 3 names the damaged column's checksum: which column depends on where the bit fell.
        String checksum = "checksum failed: expected crc32c 0x";

        assertEquals(1, run("store", data.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("\"verified_blocks\":1,\"not_verifiable_blocks\":1,\"damaged_blocks\":1,"), json);
        assertTrue(Pattern.compile(Pattern.quote("{\"block\":\"" + logs.ref() + "\",\"file\":\"data.arrow\",\"batch\":0,"
                + "\"problem\":\"") + "[^\"]*" + Pattern.quote(checksum)).matcher(json).find(), json);
        assertTrue(json.contains("{\"block\":\"" + logs.ref() + "\",\"file\":\"TRACE_IDX\",\"batch\":null,"
                + "\"problem\":\"missing: "), json);
        assertEquals(2, json.split("\"file\":", -1).length - 1, json);

        out.getBuffer().setLength(0);
        assertEquals(1, run("store", data.toString(), "--verify"), err.toString());
        String text = out.toString();
        assertTrue(text.lines().anyMatch(l -> l.matches("not verifiable blocks +1")), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("damaged blocks +1")), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith(logs.ref() + "  data.arrow  0      ") && l.contains(checksum)),
                text);
    }

    /**
     * A meta.json changed into other valid JSON, a damaged TAGS, an index whose copy of a meta.json is
     * changed the same way, and then a damaged index: each is listed, and each makes the exit 1.
     */
    @Test
    void verify_damagedMetaTagsAndIndex_eachListedAndExitsOne() throws IOException {
        FsBlockStore store = new FsBlockStore(data);
        new BlockIndexWriter(store).reconcile(ACME, Signal.SPANS);
        Path first = data.resolve(acmeSpans.get(0).ref().toString());
        Path second = data.resolve(acmeSpans.get(1).ref().toString());
        DamagedBlocks.changeDigit(first.resolve("meta.json"), "minTimeUnixNano");
        Path tags = second.resolve("TAGS");
        DamagedBlocks.flipBit(tags, Files.size(tags) / 2);
        assertEquals(1, run("store", data.toString(), "--verify", "--json"), err.toString());
        String json = out.toString();
        assertTrue(json.contains("{\"block\":\"" + acmeSpans.get(0).ref() + "\",\"file\":\"meta.json\",\"batch\":null,"
                + "\"problem\":\"corrupt meta.json: checksum failed: metaCrc32c is "), json);
        assertTrue(json.contains("{\"block\":\"" + acmeSpans.get(1).ref() + "\",\"file\":\"TAGS\",\"batch\":null,"
                + "\"problem\":\"TAGS: checksum failed"), json);
        // The index copied the first block's meta.json before it was damaged.
        assertTrue(json.contains("\"file\":\"INDEX\",\"batch\":null,\"problem\":\"the index's copy of meta.json is not "
                + "the block's\""), json);

        BlockIndex index = BlockIndex.decode(store.readIndex(ACME, Signal.SPANS, null).orElseThrow().bytes(), ACME,
                Signal.SPANS);
        BlockIndex.Entry e = index.entries().get(1);
        byte[] copy = e.meta().clone();
        int at = new String(copy, StandardCharsets.US_ASCII).indexOf("\"maxDurationNano\": ") + 19;
        copy[at] = DamagedBlocks.changedDigit(copy[at]);
        store.writeIndex(ACME, Signal.SPANS, index.with(List.of(new BlockIndex.Entry(e.name(), copy, e.traceIdx(),
                e.attrIdx(), e.dataFooter()))).encode(), store.readIndex(ACME, Signal.SPANS, null).orElseThrow().token());
        out.getBuffer().setLength(0);
        assertEquals(1, run("store", data.toString(), "--verify", "--json"), err.toString());
        json = out.toString();
        assertTrue(json.contains("{\"block\":\"" + acmeSpans.get(1).ref() + "\",\"file\":\"INDEX\",\"batch\":null,"
                + "\"problem\":\"the index's copy of meta.json, which is damaged (checksum failed: metaCrc32c is "), json);

        Path indexFile = data.resolve("acme/spans/INDEX");
        DamagedBlocks.flipBit(indexFile, Files.size(indexFile) / 2);
        out.getBuffer().setLength(0);
        assertEquals(1, run("store", data.toString(), "--verify", "--json"), err.toString());
        json = out.toString();
        assertTrue(json.contains("{\"block\":null,\"file\":\"acme/spans/INDEX\",\"batch\":null,\"problem\":\"damaged: "),
                json);
        assertTrue(json.contains("\"damaged_indexes\":1"), json);
    }

    @Test
    void store_withoutVerify_readsNoBatchAndSaysNothingOfChecksums() throws IOException {
        DamagedBlocks.flipBitInBatch(data.resolve(logs.ref().toString()), 0, allocator);
        assertEquals(0, run("store", data.toString(), "--json"), err.toString());
        assertFalse(out.toString().contains("verified_blocks"), out.toString());
    }

    @Test
    void store_missingDirectory_exitsOneSayingSo() {
        assertEquals(1, run("store", data.resolve("nope").toString()));
        assertEquals("needle inspect store: " + data.resolve("nope").toAbsolutePath() + " does not exist",
                err.toString().strip());
        assertTrue(Files.notExists(data.resolve("nope")), "a read-only command must not create the directory");
    }

    @Test
    void store_aFile_exitsOneSayingItIsNoDirectory() throws IOException {
        Path file = Files.writeString(data.resolve("file"), "not a data directory");
        assertEquals(1, run("store", file.toString()));
        assertEquals("needle inspect store: " + file.toAbsolutePath() + " is a file, not a directory",
                err.toString().strip());
    }

    private long dataBytes(WrittenBlock block) throws IOException {
        return Files.size(data.resolve(block.ref().toString()).resolve("data.arrow"));
    }
}
