package dev.needle.ingest.server;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.ingest.IngestLimits;
import dev.needle.query.head.HeadPartsFormat;
import dev.needle.query.http.QueryApi;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One ingest node and two query nodes in this JVM, on one bucket of an in-process S3Proxy: what the
 * ingest node acknowledged is answered by both query nodes at once, before and after it is published,
 * each record once while publishing runs beside the queries; a stopped ingest node makes answers
 * partial and named; a query node writes nothing to the bucket. And on a local directory: query nodes
 * read beside the one writer, whose lock still refuses a second writer.
 */
class RolesTest {

    /** Cuts only when a test publishes: nothing is published by age or size while it runs. */
    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 64L << 20);
    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "roles-test")), 0, "");
    private static final Scope SCOPE = new Scope("roles-test", "1", List.of(), 0, "");

    @RegisterExtension
    static final S3ProxyServer s3 = S3ProxyServer.perClassAsDefaultCredentials();

    @TempDir
    Path dir;

    private ServerConfig onBucket(String bucket, Role role, List<URI> ingesters) {
        return ServerConfig.DEFAULTS.withData(dir.resolve(role.word() + ingesters.size())).withPorts(0, 0)
                .withLimits(NO_AGE_CUTS).withS3(S3Location.parse("s3://" + bucket + "/needle", s3.endpoint(), true))
                .withRole(role, ingesters);
    }

    private static List<URI> ingesters(NeedleServer... nodes) {
        List<URI> out = new ArrayList<>();
        for (NeedleServer node : nodes) {
            out.add(Http.uri(node.queryAddress(), ""));
        }
        return out;
    }

    @Test
    void spansFromARealClient_answeredByBothQueryNodes_beforeAndAfterPublishing() throws Exception {
        s3.createBucket("roles");
        try (NeedleServer ingest = NeedleServer.start(onBucket("roles", Role.INGEST, List.of()));
             NeedleServer queryA = NeedleServer.start(onBucket("roles", Role.QUERY, ingesters(ingest)));
             NeedleServer queryB = NeedleServer.start(onBucket("roles", Role.QUERY, ingesters(ingest)))) {
            String trace = sendTrace(ingest, 5);
            for (NeedleServer query : List.of(queryA, queryB)) {
                assertEquals(5, Http.trace(query.queryAddress(), trace).spans().size(), "from the ingest node's head");
            }
            assertEquals(0, ingest.store().list(TenantId.DEFAULT, Signal.SPANS).size(), "nothing published yet");

            ingest.pipeline().cutAndPublish();
            assertEquals(1, ingest.store().list(TenantId.DEFAULT, Signal.SPANS).size());
            assertEquals(0, ingest.pipeline().head().rows());
            for (NeedleServer query : List.of(queryA, queryB)) {
                assertEquals(5, Http.trace(query.queryAddress(), trace).spans().size(), "from the block");
            }
        }
    }

    /** Sends {@code n} spans of one trace through the OpenTelemetry SDK's OTLP/HTTP exporter; returns the trace id. */
    private static String sendTrace(NeedleServer ingest, int n) {
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
                .setEndpoint(Http.uri(ingest.otlpAddress(), "/v1/traces").toString()).build();
        SdkTracerProvider tracers = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        try {
            Tracer tracer = tracers.get("roles-test");
            Span root = tracer.spanBuilder("root").startSpan();
            try (io.opentelemetry.context.Scope ignored = root.makeCurrent()) {
                for (int i = 1; i < n; i++) {
                    tracer.spanBuilder("child-" + i).startSpan().end();
                }
            } finally {
                root.end();
            }
            assertTrue(tracers.forceFlush().join(30, SECONDS).isSuccess(), "every span acknowledged");
            return root.getSpanContext().getTraceId();
        } finally {
            tracers.shutdown().join(10, SECONDS);
        }
    }

    /**
     * Log records (which, unlike spans, are never merged by id, so a record answered twice would be
     * counted twice) sent in rounds while another thread publishes the head again and again: after each
     * round both query nodes answer exactly the records acknowledged so far, whether each is then in
     * the head, in a cut being published, or in a block.
     */
    @Test
    void publishingDuringQueries_everyAcknowledgedRecordAnsweredOnce() throws Exception {
        s3.createBucket("once");
        try (NeedleServer ingest = NeedleServer.start(onBucket("once", Role.INGEST, List.of()));
             NeedleServer queryA = NeedleServer.start(onBucket("once", Role.QUERY, ingesters(ingest)));
             NeedleServer queryB = NeedleServer.start(onBucket("once", Role.QUERY, ingesters(ingest)))) {
            String trace = Spans.traceHex(0x0ACE, 1);
            // The trace's span: a trace by id answers the trace's log records when it finds the trace.
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(trace, 1)));
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread publisher = new Thread(() -> {
                while (!done.get()) {
                    try {
                        ingest.pipeline().cutAndPublish();
                    } catch (IOException | RuntimeException e) {
                        failed.set(e);
                        return;
                    }
                }
            });
            publisher.start();
            int acknowledged = 0;
            try {
                for (int round = 0; round < 25; round++) {
                    assertEquals(200, postLogs(ingest, trace, round, 3));
                    acknowledged += 3;
                    for (NeedleServer query : List.of(queryA, queryB)) {
                        assertEquals(acknowledged, Http.trace(query.queryAddress(), trace).logs().size(),
                                "round " + round + " on query port " + query.queryAddress().getPort());
                    }
                }
            } finally {
                done.set(true);
                publisher.join();
            }
            assertNull(failed.get());
            assertTrue(ingest.store().list(TenantId.DEFAULT, Signal.LOGS).size() > 1, "blocks were published meanwhile");
        }
    }

    private static int postLogs(NeedleServer ingest, String trace, int round, int n) throws IOException {
        List<LogRecord> logs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            logs.add(LogRecord.builder().resource(RESOURCE).scope(SCOPE)
                    .timeUnixNano(Spans.START + round * 1_000_000L + i).severityNumber(9).severityText("INFO")
                    .body(AnyValue.of("round " + round + " line " + i)).traceId(Bytes.fromHex(trace)).build());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        OtlpJson.encodeLogs(logs, body);
        return Http.post(ingest.otlpAddress(), "/v1/logs", "application/json", body.toByteArray()).statusCode();
    }

    /**
     * Two ingest nodes on one bucket cut their first records at the same log sequence and the same
     * time range: only their writer ids keep their blocks apart, and a node that restarts recovers from
     * its own blocks alone.
     */
    @Test
    void twoIngestNodes_shareABucket_eachBlockItsOwn() throws Exception {
        s3.createBucket("shared-ingest");
        ServerConfig a = onBucket("shared-ingest", Role.INGEST, List.of()).withData(dir.resolve("a"));
        ServerConfig b = onBucket("shared-ingest", Role.INGEST, List.of()).withData(dir.resolve("b"));
        String traceA = Spans.traceHex(0xA, 1);
        String traceB = Spans.traceHex(0xB, 1);
        try (NeedleServer ingestA = NeedleServer.start(a); NeedleServer ingestB = NeedleServer.start(b)) {
            assertEquals(200, Http.postSpans(ingestA.otlpAddress(), Spans.of(traceA, 2)));
            assertEquals(200, Http.postSpans(ingestB.otlpAddress(), Spans.of(traceB, 2)));
            ingestA.pipeline().cutAndPublish();
            ingestB.pipeline().cutAndPublish();
            assertEquals(2, ingestA.store().list(TenantId.DEFAULT, Signal.SPANS).size());
            assertEquals(200, Http.postSpans(ingestB.otlpAddress(), Spans.of(traceB, 3)));
        }
        try (NeedleServer ingestA = NeedleServer.start(a);
             NeedleServer query = NeedleServer.start(onBucket("shared-ingest", Role.QUERY, ingesters(ingestA)))) {
            assertEquals(3, ingestA.store().list(TenantId.DEFAULT, Signal.SPANS).size(), "recovery deleted nothing");
            assertEquals(0, ingestA.pipeline().head().rows(), "nothing replayed twice");
            assertEquals(2, Http.trace(query.queryAddress(), traceA).spans().size());
            assertEquals(3, Http.trace(query.queryAddress(), traceB).spans().size());
        }
    }

    @Test
    void writerId_keptBesideTheLog_andNoneForALogBegunWithout() throws Exception {
        Path fresh = dir.resolve("fresh");
        String id = WriterId.of(fresh);
        assertTrue(id.matches("[0-9a-z]{10}"), id);
        assertEquals(id, WriterId.of(fresh), "the same id at every start");
        Path legacy = dir.resolve("legacy");
        try (NeedleServer all = NeedleServer.start(ServerConfig.DEFAULTS.withData(legacy).withPorts(0, 0))) {
            assertEquals(200, Http.postSpans(all.otlpAddress(), Spans.of(Spans.traceHex(0x1E, 1), 1)));
        }
        assertEquals("", WriterId.of(legacy), "its blocks are unnamed: recovery must still find them");
    }

    @Test
    void stoppedIngestNode_answersArePartialAndNameIt() throws Exception {
        s3.createBucket("stopped");
        NeedleServer ingest = NeedleServer.start(onBucket("stopped", Role.INGEST, List.of()));
        URI ingestUri = ingesters(ingest).get(0);
        try (NeedleServer query = NeedleServer.start(onBucket("stopped", Role.QUERY, List.of(ingestUri)))) {
            String trace = Spans.traceHex(0x5709, 1);
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(trace, 3)));
            ingest.close();

            HttpResponse<byte[]> byId = Http.get(query.queryAddress(), "/api/v2/traces/" + trace);
            String body = Http.text(byId);
            assertEquals(200, byId.statusCode(), body);
            assertTrue(body.contains("\"status\":\"PARTIAL\""), body);
            assertTrue(body.contains("ingest node " + ingestUri + " could not be asked"), body);
            assertTrue(body.contains("op-1"), "the block its shutdown published still answers: " + body);

            HttpResponse<byte[]> search = Http.get(query.queryAddress(), "/api/search?q=%7B%7D");
            assertEquals("PARTIAL", search.headers().firstValue(QueryApi.STATUS_HEADER).orElse(""));
            assertTrue(search.headers().firstValue(QueryApi.MESSAGE_HEADER).orElse("").contains(ingestUri.toString()));
        } finally {
            ingest.close();
        }
    }

    @Test
    void queryNode_writesNothingToTheBucket() throws Exception {
        s3.createBucket("untouched");
        try (NeedleServer ingest = NeedleServer.start(onBucket("untouched", Role.INGEST, List.of()))) {
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(Spans.traceHex(0x0B, 1), 3)));
            ingest.pipeline().cutAndPublish();
            Map<String, String> before = objects("untouched");
            try (NeedleServer query = NeedleServer.start(onBucket("untouched", Role.QUERY, ingesters(ingest)))) {
                assertEquals(200, Http.get(query.queryAddress(), "/api/v2/traces/" + Spans.traceHex(0x0B, 1)).statusCode());
                assertEquals(200, Http.get(query.queryAddress(), "/api/search?q=%7B%7D").statusCode());
                assertThrows(UnsupportedOperationException.class,
                        () -> query.store().create(TenantId.DEFAULT, Signal.SPANS));
                assertNull(query.otlpAddress(), "a query node takes no OTLP");
                assertEquals(404, Http.get(ingest.queryAddress(), "/api/v2/traces/" + Spans.traceHex(0x0B, 1)).statusCode(),
                        "an ingest node serves no query API");
            }
            assertEquals(before, objects("untouched"));
        }
    }

    /** Every object of the bucket with its ETag and time. */
    private static Map<String, String> objects(String bucket) {
        Map<String, String> out = new TreeMap<>();
        try (S3Client client = s3.client()) {
            for (S3Object o : client.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
                out.put(o.key(), o.eTag() + " " + o.lastModified());
            }
        }
        return out;
    }

    @Test
    void localDirectory_queryNodesReadBesideTheWriter_whoseLockRefusesASecondWriter() throws Exception {
        Path data = dir.resolve("shared");
        ServerConfig local = ServerConfig.DEFAULTS.withData(data).withPorts(0, 0).withLimits(NO_AGE_CUTS);
        try (NeedleServer writer = NeedleServer.start(local);
             NeedleServer queryA = NeedleServer.start(local.withRole(Role.QUERY, ingesters(writer)));
             NeedleServer queryB = NeedleServer.start(local.withRole(Role.QUERY, ingesters(writer)))) {
            String trace = Spans.traceHex(0x10CA1, 1);
            assertEquals(200, Http.postSpans(writer.otlpAddress(), Spans.of(trace, 4)));
            for (NeedleServer query : List.of(queryA, queryB)) {
                assertEquals(4, Http.trace(query.queryAddress(), trace).spans().size());
            }
            writer.pipeline().cutAndPublish();
            for (NeedleServer query : List.of(queryA, queryB)) {
                assertEquals(4, Http.trace(query.queryAddress(), trace).spans().size());
            }
            IOException refused = assertThrows(IOException.class,
                    () -> NeedleServer.start(local.withRole(Role.INGEST, List.of())));
            assertTrue(refused.getMessage().contains("is in use by another needle process"), refused.getMessage());
        }
    }

    @Test
    void headEndpoint_servesATracesRecordsOnly() throws Exception {
        try (NeedleServer ingest = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir.resolve("i"))
                .withPorts(0, 0).withLimits(NO_AGE_CUTS).withRole(Role.INGEST, List.of()))) {
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(Spans.traceHex(1, 1), 3)));
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(Spans.traceHex(1, 2), 200)));
            HttpResponse<byte[]> one = Http.get(ingest.queryAddress(), "/internal/head/spans?trace=" + Spans.traceHex(1, 1));
            HttpResponse<byte[]> all = Http.get(ingest.queryAddress(), "/internal/head/spans");
            assertEquals(200, one.statusCode());
            assertEquals(3, HeadPartsFormat.SPANS.read(new ByteArrayInputStream(one.body()))
                    .stream().mapToInt(p -> p.records().size()).sum());
            assertTrue(all.body().length > 20 * one.body().length, all.body().length + " vs " + one.body().length);
            assertEquals(400, Http.get(ingest.queryAddress(), "/internal/head/spans", "X-Scope-OrgID", "../x").statusCode());
            assertEquals(404, Http.get(ingest.queryAddress(), "/internal/head/metrics").statusCode());
            HttpResponse<byte[]> query = Http.get(ingest.queryAddress(), "/api/search");
            assertEquals(404, query.statusCode());
            assertTrue(Http.text(query).contains("this is an ingest node (--role ingest): send queries to a query node"));
        }
    }
}
