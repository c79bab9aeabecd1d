package dev.needle.bench;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
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
