package dev.needle.query.metrics;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.needle.query.http.ApiFixture;
import dev.needle.sidecar.BloomSidecar;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link QueryMetrics} counted by real lookups and served by {@link MetricsHandler} in the Prometheus text format. */
class MetricsHandlerTest {

    @TempDir
    Path dir;
    private ApiFixture api;
    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);

    @BeforeEach
    void setUp() throws Exception {
        api = new ApiFixture(dir);
        server.addConnector(connector);
        server.setHandler(new MetricsHandler(api.registry));
        server.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        server.stop();
        api.close();
    }

    private HttpTester.Response metrics(String method) throws Exception {
        return ApiFixture.send(connector, method, "/metrics");
    }

    private void lookup(String uri) throws Exception {
        int status = api.get(uri, "X-Scope-OrgID", A.value()).getStatus();
        assertTrue(status == 200 || status == 404, uri + " gave " + status);
    }

    /** The value of the sample {@code name} whose labels include every {@code label="value"} pair given. */
    private static double sample(String text, String name, String... labels) {
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            boolean all = true;
            for (int i = 0; i < labels.length; i += 2) {
                all &= line.contains(labels[i] + "=\"" + labels[i + 1] + "\"");
            }
            if (all) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return fail("no sample " + name + " with " + String.join(",", labels) + " in\n" + text);
    }

    @Test
    void metrics_afterLookups_countThemByKindSignalAndMechanism() throws Exception {
        // Before any lookup: a sidecar once cached is not read again, so its loss would go unnoticed.
        Files.delete(api.store.blockDir(api.spanBlocksA.get(1)).resolve(BloomSidecar.TRACE_IDX));
        String before = metrics("GET").getContent();
        assertEquals(0.0, sample(before, "needle_query_lookups_total", "kind", "trace", "signal", "spans"));
        assertEquals(0.0, sample(before, "needle_query_blocks_pruned_total", "mechanism", "zone_maps", "signal", "logs"));

        String id = api.failedTraces.get(0).hex();
        lookup("/api/v2/traces/" + id + "?logs=true");
        lookup("/api/v2/traces/" + id);
        lookup("/api/traces/0123456789abcdef0123456789abcdef");
        lookup("/api/search?q=" + enc("{ name = \"GET /long\" }"));
        lookup("/api/logs?q=" + enc("{ severity >= 17 }") + "&start=" + ApiFixture.T0_SECONDS);
        api.truncateData(api.spanBlocksA.get(0));
        lookup("/api/v2/traces/" + api.shortId.hex());

        HttpTester.Response r = metrics("GET");
        assertEquals(200, r.getStatus());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", r.get("Content-Type"));
        String text = r.getContent();
        assertEquals(4.0, sample(text, "needle_query_lookups_total", "kind", "trace", "signal", "spans"));
        assertEquals(1.0, sample(text, "needle_query_lookups_total", "kind", "trace", "signal", "logs"));
        // The search's span lookup, then the one trace it found, looked up whole.
        assertEquals(2.0, sample(text, "needle_query_lookups_total", "kind", "search", "signal", "spans"));
        assertEquals(1.0, sample(text, "needle_query_lookups_total", "kind", "logs", "signal", "logs"));
        assertEquals(4.0, sample(text, "needle_query_latency_seconds_count", "kind", "trace"));
        assertEquals(1.0, sample(text, "needle_query_latency_seconds_count", "kind", "logs"));
        assertTrue(sample(text, "needle_query_latency_seconds_sum", "kind", "search") > 0);
        assertEquals(6.0 * ApiFixture.SPAN_BLOCKS_A, sample(text, "needle_query_blocks_listed_total", "signal", "spans"));
        assertTrue(sample(text, "needle_query_blocks_pruned_total", "mechanism", "trace_idx", "signal", "spans") > 0);
        assertTrue(sample(text, "needle_query_blocks_pruned_total", "mechanism", "attr_idx", "signal", "spans") > 0);
        assertTrue(sample(text, "needle_query_blocks_opened_total", "signal", "spans") > 0);
        // Exported even when a lookup opened nothing in vain (sample fails on a missing series).
        sample(text, "needle_query_blocks_opened_for_nothing_total", "signal", "spans");
        assertEquals(5.0, sample(text, "needle_query_sidecars_failed_open_total", "reason", "missing", "signal", "spans"),
                "every trace lookup (the search's too) scans the block whose TRACE_IDX is gone");
        assertEquals(1.0, sample(text, "needle_query_blocks_unreadable_total", "signal", "spans"));
        assertTrue(sample(text, "needle_query_rows_scanned_total", "signal", "logs") > 0);
        assertTrue(sample(text, "needle_query_read_bytes_total", "signal", "spans") > 0);
        assertTrue(sample(text, "needle_query_sidecar_cache_bytes") > 0);
        assertTrue(sample(text, "needle_query_sidecar_cache_hits_total") > 0);
        assertTrue(sample(text, "needle_query_sidecar_cache_misses_total") > 0);
    }

    @Test
    void metrics_otherMethod_is405() throws Exception {
        HttpTester.Response r = metrics("POST");
        assertEquals(405, r.getStatus());
        assertEquals("GET", r.get("Allow"));
    }
}
