package dev.needle.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.SearchResult;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Param;

/**
 * Runs each benchmark's setup, one invocation and its checks without JMH, for every {@link Param}
 * value, so that a broken benchmark or broken code under it fails {@code mvn verify} in seconds.
 */
final class BenchmarksTest {

    @Test
    void sidecarProbe_everyFilterSize_passesItsChecks() throws Exception {
        for (String kib : paramValues(SidecarProbeBenchmark.class, "filterKiB")) {
            SidecarProbeBenchmark benchmark = probeBenchmark(Integer.parseInt(kib));
            assertTrue(benchmark.presentKey());
            benchmark.absentKey();
            benchmark.checkAnswers();
        }
    }

    @Test
    void sidecarProbe_presentKeyAnsweredAbsent_failsIteration() {
        SidecarProbeBenchmark benchmark = probeBenchmark(64);
        benchmark.presentNo = 1;
        assertThrows(IllegalStateException.class, benchmark::checkAnswers);
    }

    @Test
    void sidecarProbe_sizeTheFormatNeverWrites_failsSetup() {
        assertThrows(IllegalStateException.class, () -> probeBenchmark(96));
    }

    @Test
    void sidecarBuild_traceIdxOfEveryShape_passesItsChecks() throws Exception {
        for (String shape : paramValues(SidecarBuildBenchmark.TraceIds.class, "shape")) {
            SidecarBuildBenchmark.TraceIds ids = new SidecarBuildBenchmark.TraceIds();
            ids.shape = shape;
            ids.generate();
            assertNotNull(new SidecarBuildBenchmark().traceIdx(ids));
            ids.checkLastFile();
        }
    }

    @Test
    void sidecarBuild_attrIdx_passesItsChecks() {
        SidecarBuildBenchmark.AttributePairs pairs = new SidecarBuildBenchmark.AttributePairs();
        pairs.generate();
        assertNotNull(new SidecarBuildBenchmark().attrIdx(pairs));
        pairs.checkLastFile();
    }

    @Test
    void sidecarBuild_corruptFile_failsIteration() {
        SidecarBuildBenchmark.AttributePairs pairs = new SidecarBuildBenchmark.AttributePairs();
        pairs.generate();
        new SidecarBuildBenchmark().attrIdx(pairs);
        pairs.lastFile[pairs.lastFile.length - 1] ^= 1;
        assertThrows(IllegalStateException.class, pairs::checkLastFile);
    }

    @Test
    void attributeHash_everyBenchmark_passesGoldenChecks() {
        AttributeHashBenchmark benchmark = new AttributeHashBenchmark();
        benchmark.generate();
        assertNotNull(benchmark.ofStringRoute());
        assertNotNull(benchmark.ofStringPodName());
        assertNotNull(benchmark.ofLongStatusCode());
        assertNotNull(benchmark.ofDoubleDuration());
    }

    @Test
    void keyMix_everyFamily_passesItsChecks() throws Exception {
        for (String family : paramValues(KeyMixBenchmark.class, "family")) {
            KeyMixBenchmark benchmark = new KeyMixBenchmark();
            benchmark.family = family;
            benchmark.generate();
            benchmark.mixIds();
        }
    }

    @Test
    void keyMix_wrongExpectedSum_failsInvocation() {
        KeyMixBenchmark benchmark = new KeyMixBenchmark();
        benchmark.family = "counter";
        benchmark.generate();
        benchmark.expectedH2Sum ^= 2;
        assertThrows(IllegalStateException.class, benchmark::mixIds);
    }

    @Test
    void batchDecode_everyColumnChoice_passesItsChecks() throws Exception {
        for (String columns : paramValues(BatchDecodeBenchmark.class, "columns")) {
            BatchDecodeBenchmark benchmark = decodeBenchmark(columns);
            try {
                benchmark.readBatch();
            } finally {
                benchmark.tearDown();
            }
        }
    }

    @Test
    void batchDecode_wrongChecksum_failsInvocation() throws Exception {
        BatchDecodeBenchmark benchmark = decodeBenchmark("traceId");
        try {
            benchmark.expectedTraceSum++;
            assertThrows(IllegalStateException.class, benchmark::readBatch);
        } finally {
            benchmark.tearDown();
        }
    }

    /** One 300,000-span block serves every condition and the wrong count: writing it is most of the test's time. */
    @Test
    void equalityScan_everyCondition_passesItsChecks() throws Exception {
        EqualityScanBenchmark benchmark = new EqualityScanBenchmark();
        benchmark.setUp();
        try {
            SearchResult<SpanRecord> route = benchmark.spanRoute();
            assertFalse(route.records().isEmpty());
            assertFalse(benchmark.spanStatus().records().isEmpty());
            assertFalse(benchmark.resourceService().records().isEmpty());
            benchmark.report();
            int found = route.records().size();
            assertThrows(IllegalStateException.class,
                    () -> EqualityScanBenchmark.check(benchmark.routeQuery, route, found + 1));
        } finally {
            benchmark.tearDown();
        }
    }

    /** Every probed trace once, over a block of three batches and a bit: the lookup is alike in any block. */
    @Test
    void traceFetch_everyProbedTrace_passesItsChecks() throws Exception {
        TraceFetchBenchmark benchmark = new TraceFetchBenchmark();
        benchmark.blockSpans = 3 * BlockLayout.MAX_BATCH_ROWS + 1000;
        benchmark.setUp();
        try {
            for (int i = 0; i < TraceFetch.TRACES_PROBED; i++) {
                assertFalse(benchmark.trace().spans().isEmpty());
            }
            benchmark.report();
        } finally {
            benchmark.tearDown();
        }
    }

    @Test
    void traceFetch_blockMissingASpanOfTheTrace_failsInvocation(@TempDir Path dir) throws Exception {
        List<SpanRecord> spans = BenchSpans.generate(2_560, 7);
        FsBlockStore store = new FsBlockStore(dir);
        try (BufferAllocator allocator = new RootAllocator()) {
            // The first trace fetched is the first span's, which is left out of the block.
            new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans.subList(1, spans.size()));
        }
        try (TraceFetch fetch = new TraceFetch(store, spans)) {
            assertThrows(IllegalStateException.class, fetch::next);
        }
    }

    /**
     * A batch decode benchmark over a block of three batches and a bit: the batch it reads is full
     * and alike in any block, so the 300,000 spans JMH uses would only slow the test down.
     */
    private static BatchDecodeBenchmark decodeBenchmark(String columns) throws Exception {
        BatchDecodeBenchmark benchmark = new BatchDecodeBenchmark();
        benchmark.columns = columns;
        benchmark.blockSpans = 3 * BatchDecodeBenchmark.ROWS + 1000;
        benchmark.setUp();
        return benchmark;
    }

    private static SidecarProbeBenchmark probeBenchmark(int filterKiB) {
        SidecarProbeBenchmark benchmark = new SidecarProbeBenchmark();
        benchmark.filterKiB = filterKiB;
        benchmark.buildFilter();
        benchmark.resetCounts();
        return benchmark;
    }

    /** The values JMH runs a {@link Param} field with, so that the test covers exactly those. */
    private static String[] paramValues(Class<?> state, String field) throws NoSuchFieldException {
        return state.getField(field).getAnnotation(Param.class).value();
    }
}
