package dev.needle.query.logql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A log record as Loki's OTLP ingestion maps it (grafana/loki pkg/loghttp/push/otlplabels). */
class LokiEntryTest {

    @ParameterizedTest
    @CsvSource({"service.name, service_name", "k8s.pod.name, k8s_pod_name", "http-route/v2, http_route_v2",
        "a__b._c, a_b_c", "2fa, key_2fa", "_private, _private", "__meta__, __meta__", "__a.b__, __a_b__",
        "émoji, _moji", "日本語.x, _x"})
    void labelName_asPrometheusOtlpNamer(String key, String name) {
        assertEquals(name, LokiEntry.labelName(key));
    }

    @Test
    void render_asPcommonAsString() {
        assertEquals("42", LokiEntry.render(AnyValue.of(42)));
        assertEquals("1.5", LokiEntry.render(AnyValue.of(1.5)));
        assertEquals("3", LokiEntry.render(AnyValue.of(3.0)));
        assertEquals("100000000000000000000", LokiEntry.render(AnyValue.of(1e20)));
        assertEquals("true", LokiEntry.render(AnyValue.of(true)));
        assertEquals("AQI=", LokiEntry.render(new AnyValue.Blob(Bytes.wrap(new byte[] {1, 2}))));
        assertEquals("[1,\"a\",2.5]", LokiEntry.render(new AnyValue.Array(List.of(AnyValue.of(1), AnyValue.of("a"),
                AnyValue.of(2.5)))));
        assertEquals("{\"a\":{\"x\":true},\"b\":null}", LokiEntry.render(new AnyValue.KvList(List.of(
                new KeyValue("b", AnyValue.Empty.INSTANCE),
                new KeyValue("a", new AnyValue.KvList(List.of(new KeyValue("x", AnyValue.of(true)))))))));
        assertEquals("", LokiEntry.render(AnyValue.Empty.INSTANCE));
    }

    @Test
    void of_fullRecord_labelsLineAndStructuredMetadataAsLoki() {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "checkout"), KeyValue.of("k8s.pod.name", "c-0"),
                KeyValue.of("shard", 3), new KeyValue("tags", new AnyValue.Array(List.of(AnyValue.of("a"))))), 0, "");
        Scope scope = new Scope("io.lib", "2.1", List.of(KeyValue.of("scope.attr", "s")), 0, "");
        LogRecord r = LogRecord.builder().resource(resource).scope(scope).timeUnixNano(1_000L)
                .observedTimeUnixNano(2_000L).severityNumber(17).severityText("ERROR").body(AnyValue.of("boom"))
                .attributes(List.of(KeyValue.of("http.method", "GET"), KeyValue.of("event_name", "shadowed")))
                .flags(1).traceId(Bytes.fromHex("0af7651916cd43dd8448eb211c80319c"))
                .spanId(Bytes.fromHex("b7ad6b7169203331")).eventName("order.failed").build();
        LokiEntry e = LokiEntry.of(r);
        assertEquals(Map.of("service_name", "checkout", "k8s_pod_name", "c-0", "shard", "3"), e.labels());
        assertEquals("boom", e.line());
        assertEquals(1_000L, e.timeUnixNano());
        Map<String, String> shown = new LinkedHashMap<>();
        shown.put("tags", "[\"a\"]");
        shown.put("scope_attr", "s");
        shown.put("scope_name", "io.lib");
        shown.put("scope_version", "2.1");
        shown.put("http_method", "GET");
        shown.put("observed_timestamp", "2000");
        shown.put("severity_number", "17");
        shown.put("severity_text", "ERROR");
        shown.put("flags", "1");
        shown.put("trace_id", "0af7651916cd43dd8448eb211c80319c");
        shown.put("span_id", "b7ad6b7169203331");
        shown.put("event_name", "order.failed");
        shown.put("detected_level", "error");
        assertEquals(List.copyOf(shown.entrySet()), List.copyOf(e.shown().entrySet()));
        // The array is shown but, not being a scalar, not matched.
        assertEquals("", e.label("tags"));
        assertEquals("GET", e.label("http_method"));
    }

    @Test
    void of_noServiceName_discoveredOrUnknown() {
        LogRecord app = record(new Resource(List.of(KeyValue.of("k8s.container.name", "box"), KeyValue.of("app", "legacy")), 0, ""));
        assertEquals("legacy", LokiEntry.of(app).labels().get("service_name"));
        assertEquals("unknown_service", LokiEntry.of(record(Resource.EMPTY)).labels().get("service_name"));
    }

    @Test
    void of_lokisOwnStreams_noServiceNameDiscovered() {
        LogRecord metric = record(new Resource(List.of(KeyValue.of("__aggregated_metric__", "cart"),
                KeyValue.of("app", "legacy")), 0, ""));
        assertEquals(Map.of("__aggregated_metric__", "cart", "app", "legacy"), LokiEntry.of(metric).labels());
        LogRecord pattern = record(new Resource(List.of(KeyValue.of("__pattern__", "cart")), 0, ""));
        assertEquals(Map.of("__pattern__", "cart"), LokiEntry.of(pattern).labels());
    }

    private static LogRecord record(Resource resource) {
        return LogRecord.builder().resource(resource).observedTimeUnixNano(5).body(AnyValue.of(7)).build();
    }
}
