package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine's trace lookup over blocks' golden blocks of writer versions 1 and 2 (written once,
 * never regenerated): a change to the zone maps, TRACE_IDX, the checksums or the trace-id column
 * that would make old blocks lose a trace's records fails here.
 */
class GoldenBlockTraceTest {

    private static final Path GOLDEN = Path.of("../blocks/src/test/resources/golden");

    @Test
    void trace_onGoldenBlocksOfBothVersions_findsTheSameSpansAndCorrelatedLogs() throws IOException {
        Bytes trace = Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736");
        try (QueryEngine v1 = engine("data"); QueryEngine v2 = engine("data-v2")) {
            for (Mechanisms mechanisms : TraceLookupTest.everyCombination()) {
                TraceResult one = v1.trace(TenantId.DEFAULT, trace, TimeRange.ALL, mechanisms, true);
                TraceResult two = v2.trace(TenantId.DEFAULT, trace, TimeRange.ALL, mechanisms, true);
                for (TraceResult result : List.of(one, two)) {
                    assertFalse(result.partial(), result.problems().toString());
                    assertEquals(7, result.spans().size(), mechanisms.toString());
                    assertEquals(5, result.logs().size(), mechanisms.toString());
                }
                assertEquals(one.spans(), two.spans(), mechanisms.toString());
                assertEquals(one.logs(), two.logs(), mechanisms.toString());
            }
        }
    }

    private static QueryEngine engine(String data) {
        return new QueryEngine(FsBlockStore.readOnly(GOLDEN.resolve(data)), HeadSource.EMPTY, 1 << 20, 1);
    }
}
