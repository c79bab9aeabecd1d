package dev.needle.ingest.server;

import static io.opentelemetry.api.common.AttributeKey.booleanArrayKey;
import static io.opentelemetry.api.common.AttributeKey.doubleArrayKey;
import static io.opentelemetry.api.common.AttributeKey.longArrayKey;
import static io.opentelemetry.api.common.AttributeKey.stringArrayKey;
import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static io.opentelemetry.api.common.AttributeKey.valueKey;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.IngestLimits;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.KeyValue;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The OpenTelemetry Java SDK's own exporters — OtlpHttpSpanExporter and OtlpHttpLogRecordExporter,
 * protobuf over the JDK's HTTP client, plain and gzip (whose requests are chunked, without a
 * Content-Length) — export to a running server. Success is judged on the server: the head holds
 * what was exported, and the query API gives back every span and log record field for field, from
 * the head and again from the published blocks.
 */
class RealClientsTest {

    private static final String TENANT = "acme";
    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 64L << 20);

    @TempDir
    Path dir;

    /** What the SDK handed its exporters, captured beside them. */
    private record Exported(String traceId, List<SpanData> spans, List<LogRecordData> logs) {
    }

    @Test
    void classPath_hasTheJdkSenderAndNoOkHttpOrKotlin() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("okhttp3.OkHttpClient"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("kotlin.Unit"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip"})
    void export_spansAndLogsOfEveryShape_areStoredFieldForField(String compression) throws Exception {
        ServerConfig config = ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0).withLimits(NO_AGE_CUTS);
        try (NeedleServer server = NeedleServer.start(config)) {
            Exported exported = export(server, compression);
            assertEquals(3, exported.spans().size());
            assertEquals(2, exported.logs().size());

            TenantId tenant = TenantId.of(TENANT);
            assertEquals(3, server.pipeline().head().spans(tenant).size(), "the server holds what the SDK exported");
            assertEquals(2, server.pipeline().head().logs(tenant).size());
            assertStored(server, exported);

            server.pipeline().cutAndPublish();
            assertEquals(0, server.pipeline().head().rows());
            assertStored(server, exported);
        }
    }

    private static Exported export(NeedleServer server, String compression) {
        String endpoint = "http://" + HttpPorts.hostPort(server.otlpAddress());
        io.opentelemetry.sdk.resources.Resource resource = io.opentelemetry.sdk.resources.Resource.getDefault()
                .merge(io.opentelemetry.sdk.resources.Resource.create(Attributes.builder()
                        .put("service.name", "checkout").put("service.instance.id", "i-7").build(),
                        "https://opentelemetry.io/schemas/1.24.0"));
        List<SpanData> spans = Collections.synchronizedList(new ArrayList<>());
        List<LogRecordData> logs = Collections.synchronizedList(new ArrayList<>());
        OtlpHttpSpanExporter spanExporter = OtlpHttpSpanExporter.builder().setEndpoint(endpoint + "/v1/traces")
                .setCompression(compression).addHeader("X-Scope-OrgID", TENANT).build();
        OtlpHttpLogRecordExporter logExporter = OtlpHttpLogRecordExporter.builder().setEndpoint(endpoint + "/v1/logs")
                .setCompression(compression).addHeader("X-Scope-OrgID", TENANT).build();
        SdkTracerProvider tracers = SdkTracerProvider.builder().setResource(resource)
                .addSpanProcessor(SimpleSpanProcessor.create(spanExporter)).addSpanProcessor(capture(spans)).build();
        SdkLoggerProvider loggers = SdkLoggerProvider.builder().setResource(resource)
                .addLogRecordProcessor(SimpleLogRecordProcessor.create(logExporter))
                .addLogRecordProcessor((context, log) -> logs.add(log.toLogRecordData())).build();
        try {
            Tracer tracer = tracers.tracerBuilder("needle.test.spans").setInstrumentationVersion("1.2.3")
                    .setSchemaUrl("https://opentelemetry.io/schemas/1.21.0").build();
            Logger logger = loggers.loggerBuilder("needle.test.logs").setInstrumentationVersion("4.5").build();

            ThreadLocalRandom random = ThreadLocalRandom.current();
            String traceId = String.format("%016x%016x", random.nextLong(), random.nextLong() | 1);
            SpanContext remoteParent = SpanContext.createFromRemoteParent(traceId, "00f067aa0ba902b7",
                    TraceFlags.getSampled(), TraceState.builder().put("vendor", "needle:1").build());
            SpanContext linked = SpanContext.create(String.format("%032x", 0xabcdefL), "1111111111111111",
                    TraceFlags.getDefault(), TraceState.getDefault());
            long t0 = System.currentTimeMillis() * 1_000_000L;

            Span root = tracer.spanBuilder("GET /cart").setSpanKind(SpanKind.SERVER)
                    .setParent(Context.root().with(Span.wrap(remoteParent)))
                    .setStartTimestamp(t0, NANOSECONDS)
                    .setAllAttributes(everyType())
                    .addLink(linked, Attributes.of(stringKey("link.reason"), "retry of"))
                    .startSpan();
            root.addEvent("cache miss", Attributes.builder().put("keys", 3L).put("hit.ratio", 0.25).build(),
                    t0 + 1_000, NANOSECONDS);
            io.opentelemetry.context.Scope current = root.makeCurrent();
            try {
                Span query = tracer.spanBuilder("SELECT carts").setSpanKind(SpanKind.CLIENT)
                        .setStartTimestamp(t0 + 2_000, NANOSECONDS).startSpan();
                query.recordException(new IllegalStateException("deadlock detected"));
                query.setStatus(StatusCode.ERROR, "deadlock");
                query.end(t0 + 9_000, NANOSECONDS);
                tracer.spanBuilder("publish cart.updated").setSpanKind(SpanKind.PRODUCER)
                        .setStartTimestamp(t0 + 9_500, NANOSECONDS).startSpan().end(t0 + 9_700, NANOSECONDS);

                logger.logRecordBuilder().setTimestamp(t0 + 3_000, NANOSECONDS)
                        .setSeverity(Severity.WARN).setSeverityText("WARN")
                        .setBody(Value.of(KeyValue.of("msg", Value.of("slow query")), KeyValue.of("ms", Value.of(812L)),
                                KeyValue.of("raw", Value.of(new byte[] {1, 2, (byte) 0xfe})),
                                KeyValue.of("tags", Value.of(Value.of("db"), Value.of(true), Value.of(1.5)))))
                        .setAllAttributes(everyType()).setEventName("db.slow_query").emit();
                logger.logRecordBuilder().setTimestamp(t0 + 4_000, NANOSECONDS)
                        .setSeverity(Severity.ERROR2).setBody("plain text body ünïcode").emit();
            } finally {
                current.close();
            }
            root.setStatus(StatusCode.OK);
            root.end(t0 + 10_000, NANOSECONDS);

            // The SDK's word is not enough (see the class comment), but a failure here says more.
            assertTrue(tracers.forceFlush().join(30, SECONDS).isSuccess(), "span export");
            assertTrue(loggers.forceFlush().join(30, SECONDS).isSuccess(), "log export");
            return new Exported(traceId, List.copyOf(spans), List.copyOf(logs));
        } finally {
            tracers.shutdown().join(10, SECONDS);
            loggers.shutdown().join(10, SECONDS);
        }
    }

    private static Attributes everyType() {
        return Attributes.builder()
                .put("str", "välue")
                .put("bool", true)
                .put("int", -42L)
                .put("double", 2.5)
                .put(stringArrayKey("strs"), List.of("a", "", "c"))
                .put(booleanArrayKey("bools"), List.of(true, false))
                .put(longArrayKey("ints"), List.of(1L, Long.MIN_VALUE, Long.MAX_VALUE))
                .put(doubleArrayKey("doubles"), List.of(0.5, -1e300, 3.0))
                .put(valueKey("bytes"), Value.of(new byte[] {0, 1, (byte) 0xff}))
                .put(valueKey("map"), Value.of(KeyValue.of("nested", Value.of("x")), KeyValue.of("n", Value.of(7L))))
                .build();
    }

    private static SpanProcessor capture(List<SpanData> into) {
        return new SpanProcessor() {
            @Override
            public void onStart(Context parentContext, ReadWriteSpan span) {
            }

            @Override
            public boolean isStartRequired() {
                return false;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                into.add(span.toSpanData());
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        };
    }

    /** The trace through the query API as JSON (spans and logs) and as protobuf (spans), each field as exported. */
    private static void assertStored(NeedleServer server, Exported exported) throws IOException {
        Http.Trace trace = Http.trace(server.queryAddress(), exported.traceId(), "X-Scope-OrgID", TENANT);
        assertEquals(200, trace.status());
        assertSameRecords(exported.spans().stream().map(RealClientsTest::expected).toList(), trace.spans(),
                SpanRecord::spanId);
        assertSameRecords(exported.logs().stream().map(RealClientsTest::expected).toList(), trace.logs(),
                LogRecord::timeUnixNano);

        HttpResponse<byte[]> protobuf = Http.get(server.queryAddress(), "/api/v2/traces/" + exported.traceId(),
                "X-Scope-OrgID", TENANT, "Accept", "application/protobuf");
        assertEquals(200, protobuf.statusCode());
        assertEquals(new HashSet<>(trace.spans()), new HashSet<>(OtlpWire.decodeSpans(traceField(protobuf.body()).toByteArray()).records()));

        assertEquals(404, Http.get(server.queryAddress(), "/api/v2/traces/" + exported.traceId()).statusCode(),
                "another tenant sees nothing");
    }

    /** Field 1 of Tempo's TraceByIDResponse, a Trace, which is wire-identical to an ExportTraceServiceRequest. */
    private static ExportTraceServiceRequest traceField(byte[] response) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(response);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) == 1 && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                return ExportTraceServiceRequest.parseFrom(in.readBytes());
            }
            in.skipField(tag);
        }
        throw new AssertionError("no trace field in the TraceByIDResponse");
    }

    /** Each expected record has one actual record with the same key, equal in every component, named on failure. */
    private static <R extends Record, K> void assertSameRecords(List<R> expected, List<R> actual, Function<R, K> key) {
        assertEquals(expected.size(), actual.size(), () -> "expected " + expected + "\n got " + actual);
        Map<K, R> byKey = actual.stream().collect(Collectors.toMap(key, r -> r));
        for (R e : expected) {
            R a = byKey.get(key.apply(e));
            assertNotNull(a, () -> "no record with key " + key.apply(e) + " in " + actual);
            for (RecordComponent c : e.getClass().getRecordComponents()) {
                try {
                    assertEquals(c.getAccessor().invoke(e), c.getAccessor().invoke(a), key.apply(e) + ": " + c.getName());
                } catch (ReflectiveOperationException ex) {
                    throw new AssertionError(ex);
                }
            }
        }
    }

    // What OTLP carries for the SDK's data, in needle's records: the exporters' mapping, restated.

    private static SpanRecord expected(SpanData s) {
        SpanContext parent = s.getParentSpanContext();
        return SpanRecord.builder().resource(resource(s.getResource())).scope(scope(s.getInstrumentationScopeInfo()))
                .traceId(Bytes.fromHex(s.getTraceId())).spanId(Bytes.fromHex(s.getSpanId()))
                .traceState(traceState(s.getSpanContext().getTraceState()))
                .parentSpanId(parent.isValid() ? Bytes.fromHex(parent.getSpanId()) : Bytes.EMPTY)
                .flags(flags(s.getSpanContext().getTraceFlags(), parent.isRemote())).name(s.getName())
                .kind(kind(s.getKind())).startTimeUnixNano(s.getStartEpochNanos())
                .endTimeUnixNano(s.getEndEpochNanos()).attributes(attributes(s.getAttributes()))
                .droppedAttributesCount(s.getTotalAttributeCount() - s.getAttributes().size())
                .events(s.getEvents().stream().map(RealClientsTest::event).toList())
                .droppedEventsCount(s.getTotalRecordedEvents() - s.getEvents().size())
                .links(s.getLinks().stream().map(RealClientsTest::link).toList())
                .droppedLinksCount(s.getTotalRecordedLinks() - s.getLinks().size())
                .statusCode(s.getStatus().getStatusCode() == StatusCode.OK ? 1 : s.getStatus().getStatusCode() == StatusCode.ERROR ? 2 : 0)
                .statusMessage(s.getStatus().getDescription()).build();
    }

    private static LogRecord expected(LogRecordData l) {
        SpanContext context = l.getSpanContext();
        return LogRecord.builder().resource(resource(l.getResource())).scope(scope(l.getInstrumentationScopeInfo()))
                .timeUnixNano(l.getTimestampEpochNanos()).observedTimeUnixNano(l.getObservedTimestampEpochNanos())
                .severityNumber(l.getSeverity().getSeverityNumber())
                .severityText(l.getSeverityText() == null ? "" : l.getSeverityText())
                .body(l.getBodyValue() == null ? AnyValue.Empty.INSTANCE : value(l.getBodyValue()))
                .attributes(attributes(l.getAttributes()))
                .droppedAttributesCount(l.getTotalAttributeCount() - l.getAttributes().size())
                .flags(context.getTraceFlags().asByte() & 0xff)
                .traceId(context.isValid() ? Bytes.fromHex(context.getTraceId()) : Bytes.EMPTY)
                .spanId(context.isValid() ? Bytes.fromHex(context.getSpanId()) : Bytes.EMPTY)
                .eventName(l.getEventName() == null ? "" : l.getEventName()).build();
    }

    private static SpanEvent event(EventData e) {
        return new SpanEvent(e.getEpochNanos(), e.getName(), attributes(e.getAttributes()), e.getDroppedAttributesCount());
    }

    private static SpanLink link(LinkData l) {
        SpanContext c = l.getSpanContext();
        return new SpanLink(Bytes.fromHex(c.getTraceId()), Bytes.fromHex(c.getSpanId()), traceState(c.getTraceState()),
                attributes(l.getAttributes()), l.getTotalAttributeCount() - l.getAttributes().size(),
                flags(c.getTraceFlags(), c.isRemote()));
    }

    /** OTLP's span flags: the W3C trace flags, bit 8 "the remote bit is known", bit 9 "remote". */
    private static int flags(TraceFlags traceFlags, boolean remote) {
        return (traceFlags.asByte() & 0xff) | 0x100 | (remote ? 0x200 : 0);
    }

    private static int kind(SpanKind kind) {
        return switch (kind) {
            case INTERNAL -> 1;
            case SERVER -> 2;
            case CLIENT -> 3;
            case PRODUCER -> 4;
            case CONSUMER -> 5;
        };
    }

    private static String traceState(TraceState state) {
        List<String> members = new ArrayList<>();
        state.forEach((k, v) -> members.add(k + "=" + v));
        return String.join(",", members);
    }

    private static Resource resource(io.opentelemetry.sdk.resources.Resource r) {
        return new Resource(attributes(r.getAttributes()), 0, r.getSchemaUrl() == null ? "" : r.getSchemaUrl());
    }

    private static Scope scope(InstrumentationScopeInfo s) {
        return new Scope(s.getName(), s.getVersion() == null ? "" : s.getVersion(), attributes(s.getAttributes()), 0,
                s.getSchemaUrl() == null ? "" : s.getSchemaUrl());
    }

    private static List<dev.needle.blocks.model.KeyValue> attributes(Attributes attributes) {
        List<dev.needle.blocks.model.KeyValue> out = new ArrayList<>();
        attributes.forEach((k, v) -> out.add(new dev.needle.blocks.model.KeyValue(k.getKey(), attribute(k.getType(), v))));
        return out;
    }

    private static AnyValue attribute(AttributeType type, Object v) {
        return switch (type) {
            case STRING -> new AnyValue.Str((String) v);
            case BOOLEAN -> new AnyValue.Bool((Boolean) v);
            case LONG -> new AnyValue.Int((Long) v);
            case DOUBLE -> new AnyValue.Dbl((Double) v);
            case STRING_ARRAY, BOOLEAN_ARRAY, LONG_ARRAY, DOUBLE_ARRAY -> new AnyValue.Array(((List<?>) v).stream()
                    .map(e -> attribute(AttributeType.valueOf(type.name().replace("_ARRAY", "")), e)).toList());
            case VALUE -> value((Value<?>) v);
        };
    }

    private static AnyValue value(Value<?> v) {
        return switch (v.getType()) {
            case STRING -> new AnyValue.Str((String) v.getValue());
            case BOOLEAN -> new AnyValue.Bool((Boolean) v.getValue());
            case LONG -> new AnyValue.Int((Long) v.getValue());
            case DOUBLE -> new AnyValue.Dbl((Double) v.getValue());
            case BYTES -> {
                ByteBuffer b = ((ByteBuffer) v.getValue()).duplicate();
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                yield new AnyValue.Blob(Bytes.wrap(bytes));
            }
            case ARRAY -> new AnyValue.Array(((List<?>) v.getValue()).stream().map(e -> value((Value<?>) e)).toList());
            case KEY_VALUE_LIST -> new AnyValue.KvList(((List<?>) v.getValue()).stream()
                    .map(e -> new dev.needle.blocks.model.KeyValue(((KeyValue) e).getKey(), value(((KeyValue) e).getValue())))
                    .toList());
            case EMPTY -> AnyValue.Empty.INSTANCE;
        };
    }
}
