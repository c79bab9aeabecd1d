package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The engine's trace lookup over blocks' golden blocks of writer version 1 (written once, never
 * regenerated): a change to the zone maps, TRACE_IDX or the trace-id column that would make old
 * blocks lose a trace's records fails here.
 */
class GoldenBlockTraceTest {

    private static final Path GOLDEN = Path.of("../blocks/src/test/resources/golden/data");

    @Test
    void trace_onGoldenBlocks_findsSpansAndCorrelatedLogs() throws IOException {
        Bytes trace = Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736");
        try (QueryEngine engine = new QueryEngine(FsBlockStore.readOnly(GOLDEN), HeadSource.EMPTY, 1 << 20, 1)) {
            for (Mechanisms mechanisms : TraceLookupTest.everyCombination()) {
                TraceResult result = engine.trace(TenantId.DEFAULT, trace, TimeRange.ALL, mechanisms, true);
                assertFalse(result.partial(), result.problems().toString());
                assertEquals(7, result.spans().size(), mechanisms.toString());
                assertEquals(5, result.logs().size(), mechanisms.toString());
            }
        }
    }
}
