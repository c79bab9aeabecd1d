package dev.needle.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.SignalKind;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BatchAttrIdxBuilder;
import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyMix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecars the block writer builds for a generated corpus, received as a server receives it,
 * are byte for byte the files that the format's rule gives for plain {@code Set}s of the block's
 * keys: sized by the set's size, every key put. So no way of deduplicating or feeding keys faster
 * may change what is written.
 */
class GeneratedBlockSidecarsTest {

    private static final int REQUEST_RECORDS = 1_000;

    @TempDir
    Path dir;
    private BufferAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    @Test
    void writeSpans_generatedCorpus_sidecarsAreTheFilesOfTheKeySets() throws IOException {
        Corpus corpus = new Corpus(CorpusSpec.defaults(60_000, 0));
        List<SpanRecord> spans = received(SignalKind.SPANS, corpus.spanChunks(), c -> corpus.spans(c).records());
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);

        List<SpanRecord> rows = new ArrayList<>(spans);
        rows.sort(BlockWriter.SPAN_ORDER);
        Set<Bytes> traceIds = new LinkedHashSet<>();
        rows.forEach(s -> traceIds.add(s.traceId()));
        assertSidecars(block, traceIds, rows, IndexedPairs::span);
    }

    @Test
    void writeLogs_generatedCorpus_sidecarsAreTheFilesOfTheKeySets() throws IOException {
        Corpus corpus = new Corpus(CorpusSpec.defaults(0, 20_000));
        List<LogRecord> logs = received(SignalKind.LOGS, corpus.logChunks(), c -> corpus.logs(c).records());
        WrittenBlock block = new BlockWriter(store, allocator).writeLogs(TenantId.DEFAULT, logs);

        List<LogRecord> rows = new ArrayList<>(logs);
        rows.sort(BlockWriter.LOG_ORDER);
        Set<Bytes> traceIds = new LinkedHashSet<>();
        rows.stream().filter(r -> !r.traceId().isEmpty()).forEach(r -> traceIds.add(r.traceId()));
        assertSidecars(block, traceIds, rows, IndexedPairs::log);
    }

    /** Every chunk's records as a receiver has them: sent in requests of {@value #REQUEST_RECORDS} and decoded. */
    private static <R> List<R> received(SignalKind<R> kind, int chunks, IntFunction<List<R>> chunk)
            throws IOException {
        List<R> received = new ArrayList<>();
        for (int c = 0; c < chunks; c++) {
            List<R> generated = chunk.apply(c);
            for (int first = 0; first < generated.size(); first += REQUEST_RECORDS) {
                byte[] request = kind.encodeWire(generated.subList(first,
                        Math.min(generated.size(), first + REQUEST_RECORDS)));
                received.addAll(kind.decodeWire(request, request.length).records());
            }
        }
        return received;
    }

    /** TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX of {@code block} against those of the sets of its rows' keys. */
    private <R> void assertSidecars(WrittenBlock block, Set<Bytes> traceIds, List<R> rows,
                                    BiConsumer<IndexedPairs, R> feed) throws IOException {
        Set<List<Long>> traceKeys = new LinkedHashSet<>();
        for (Bytes id : traceIds) {
            byte[] b = id.toByteArray();
            traceKeys.add(List.of(KeyMix.traceIdLo(b, 0), KeyMix.traceIdHi(b, 0)));
        }
        assertFile(block, BloomSidecar.TRACE_IDX, file(traceKeys, BloomSidecar.BITS_PER_KEY, false));

        Set<List<Long>> pairs = new LinkedHashSet<>();
        Set<List<Long>> batchPairs = new LinkedHashSet<>();
        boolean[] anyDouble = {false};
        int[] batch = {0};
        IndexedPairs indexed = new IndexedPairs(new IndexedPairs.Sink() {
            @Override
            public void string(String key, String value) {
                add(AttributeHash.ofString(key, value));
            }

            @Override
            public void integer(String key, long value) {
                add(AttributeHash.ofLong(key, value));
            }

            @Override
            public void dbl(String key, double value) {
                anyDouble[0] = true;
                AttributeHash hash = AttributeHash.ofDouble(key, value);
                if (hash != null) {
                    add(hash);
                }
            }

            @Override
            public void bool(String key, boolean value) {
                add(AttributeHash.ofBool(key, value));
            }

            private void add(AttributeHash hash) {
                pairs.add(List.of(hash.lo(), hash.hi()));
                batchPairs.add(List.of(KeyMix.batchLo(hash.lo(), batch[0]), hash.hi()));
            }
        });
        for (int row = 0; row < rows.size(); row++) {
            if (row % BlockLayout.MAX_BATCH_ROWS == 0) {
                batch[0] = row / BlockLayout.MAX_BATCH_ROWS;
                indexed.newBatch();
            }
            feed.accept(indexed, rows.get(row));
        }
        assertEquals(pairs.size(), block.meta().distinctAttributePairs(), "distinct attribute pairs");
        assertFile(block, BloomSidecar.ATTR_IDX, file(pairs, BloomSidecar.BITS_PER_KEY, anyDouble[0]));
        assertFile(block, BloomSidecar.BATCH_ATTR_IDX, file(batchPairs, BatchAttrIdxBuilder.BITS_PER_KEY, anyDouble[0]));
    }

    /** The sidecar of distinct keys (lo, hi) by the format's rule: sized for their number, each put; null for none. */
    private static byte[] file(Set<List<Long>> keys, int bitsPerKey, boolean hasDouble) {
        if (keys.isEmpty()) {
            return null;
        }
        BloomBits bits = BloomBits.sizedFor(keys.size(), bitsPerKey);
        for (List<Long> key : keys) {
            bits.put(KeyMix.h1(key.get(0), key.get(1)), KeyMix.h2(key.get(0), key.get(1)));
        }
        return BloomSidecar.encode(bits, hasDouble ? BloomSidecar.FLAG_HAS_DOUBLE : 0);
    }

    /** The file {@code name} of {@code block} holds {@code expected}, or is absent when that is null. */
    private void assertFile(WrittenBlock block, String name, byte[] expected) throws IOException {
        Path written = store.blockDir(block.ref()).resolve(name);
        if (expected == null) {
            assertFalse(Files.exists(written), written + " written for no keys");
            return;
        }
        assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(Files.readAllBytes(written)),
                written.toString());
    }
}
