package dev.needle.bench.fpr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Markdown table, and the JSON of a point that the bench runner puts in its results. */
final class FprReportTest {

    /** b = 10 at m = 2^20: n = 104,857, theory 0.819%; 8,200 and 4,000,000 of 4,000,000 probes. */
    private static final FprPoint COUNTER_AT_10 =
            new FprPoint(FprFamily.COUNTER, 10, 7, 1 << 20, 104_857, 4_000_000, 32_800, 4_000_000);

    @Test
    void markdown_onePoint_headerAndRow() {
        String[] lines = FprReport.markdown(List.of(COUNTER_AT_10)).split("\n");

        assertEquals(3, lines.length);
        assertEquals("| family | bits/key | keys | theory (k = 7) | mixed | mixed / theory | unmixed | unmixed / theory"
                + " | optimal k | theory (optimal k) |", lines[0]);
        assertEquals("| counter | 10 | 104,857 | 0.819% | 0.820% | 1.00 | 100% | 122 | 7 | 0.819% |", lines[2]);
    }

    @Test
    void markdown_sweep_oneRowPerPoint() {
        List<FprPoint> points = new FprSweep(1 << 14, 1_000, 1).run(FprFamily.XRAY);
        String table = FprReport.markdown(points);
        assertEquals(2 + points.size(), table.lines().count());
        assertTrue(table.lines().skip(2).allMatch(line -> line.startsWith("| xray | ")), table);
    }

    @Test
    void json_onePoint_everyFieldReadsBack() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode array = mapper.readTree(mapper.writeValueAsString(List.of(COUNTER_AT_10)));
        assertEquals(1, array.size());
        JsonNode p = array.get(0);
        assertEquals("counter", p.get("family").asText());
        assertEquals(10, p.get("bitsPerKey").asInt());
        assertEquals(7, p.get("k").asInt());
        assertEquals(1 << 20, p.get("bits").asInt());
        assertEquals(104_857, p.get("keys").asInt());
        assertEquals(4_000_000, p.get("probes").asLong());
        assertEquals(COUNTER_AT_10.theory(), p.get("theory").asDouble());
        assertEquals(COUNTER_AT_10.ratioStandardDeviation(), p.get("ratioStandardDeviation").asDouble());
        assertEquals(32_800, p.get("mixed").get("falsePositives").asLong());
        assertEquals(0.0082, p.get("mixed").get("rate").asDouble());
        assertEquals(COUNTER_AT_10.mixedRatio(), p.get("mixed").get("ratio").asDouble());
        assertEquals(1.0, p.get("unmixed").get("rate").asDouble());
        assertEquals(7, p.get("optimalK").asInt());
        assertEquals(COUNTER_AT_10.theoryAtOptimalK(), p.get("theoryAtOptimalK").asDouble());
    }
}
