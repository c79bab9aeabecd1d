package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.http.OtlpReceiver;
import org.junit.jupiter.api.Test;

class MemoryPlanTest {

    private static final long MIB = 1L << 20;

    @Test
    void theScriptsDefaultHeap_holdsTheDefaults_withTheRestForDecoding_andAnEighthBesideForQueries() {
        MemoryPlan plan = MemoryPlan.of(1024 * MIB, IngestLimits.DEFAULTS.maxHeadBytes(), 64 * MIB,
                OtlpReceiver.DEFAULT_MAX_BODY_BYTES);

        assertEquals(128, plan.queryBytes() / MIB);
        assertEquals(64, plan.queryDefaultBytes() / MIB, "one query may hold half of what all may");
        assertEquals(819 - 256 - 64, plan.decodeBytes() / MIB, "80% of 1 GiB, less head and cache, in whole MiB");
        assertEquals(0, plan.decodeBytes() % MIB);
        assertEquals("memory: heap 1GiB; head bound 256MiB, sidecar cache and index filters 64MiB, queries' records"
                + " 128MiB, decoding 499MiB", plan.describe());
    }

    @Test
    void aQueryNode_givesQueriesWhatTheCacheLeaves() {
        MemoryPlan plan = MemoryPlan.ofQueryNode(1024 * MIB, 64 * MIB);

        assertEquals(819 - 64, plan.queryBytes() / MIB);
        assertEquals(0, plan.headBytes());
        assertEquals(0, plan.decodeBytes());
    }

    @Test
    void aHeapThatCannotDecodeOneLargestRequest_isRefused_sayingWhatToChange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MemoryPlan.of(512 * MIB, 256 * MIB, 64 * MIB, 20 * MIB));

        assertTrue(e.getMessage().startsWith("a heap of 512MiB is too small"), e.getMessage());
        assertTrue(e.getMessage().contains("NEEDLE_HEAP=2g"), e.getMessage());
        assertTrue(e.getMessage().contains("--max-request-bytes 20MiB (260MiB"), e.getMessage());
    }
}
