package dev.needle.ingest.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.store.TenantId;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests of very many tiny records — which the byte limit lets through, but which would decode
 * into tens of millions of objects — are refused with 413 before they are built.
 */
class OtlpReceiverRecordLimitTest {

    @TempDir
    Path dir;

    /** An ExportTraceServiceRequest of one resource, one scope and {@code spans} empty spans (field 2, length 0). */
    private static byte[] emptySpans(int spans) {
        ByteArrayOutputStream scope = new ByteArrayOutputStream();
        for (int i = 0; i < spans; i++) {
            scope.write(0x12);
            scope.write(0x00);
        }
        // ExportTraceServiceRequest.resource_spans (1) → ResourceSpans.scope_spans (2) → ScopeSpans.spans (2).
        return withTag(0x0a, withTag(0x12, scope.toByteArray()));
    }

    private static byte[] withTag(int tag, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        long n = body.length;
        while (n >= 0x80) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
        out.writeBytes(body);
        return out.toByteArray();
    }

    @Test
    void post_protobufWithMoreSpansThanOneRequestMayHold_is413BeforeDecoding() throws Exception {
        try (ReceiverFixture f = ReceiverFixture.start(dir)) {
            byte[] body = emptySpans((int) OtlpReceiver.MAX_RECORDS_PER_REQUEST + 1);
            HttpTester.Response response = f.post("/v1/traces", ReceiverFixture.PROTOBUF, body);
            assertEquals(413, response.getStatus());
            assertTrue(ReceiverFixture.status(response).message().contains("more than the 100000"),
                    ReceiverFixture.status(response).message());
            assertTrue(f.pipeline.head().spans(TenantId.DEFAULT).isEmpty());
        }
    }

    @Test
    void post_gzippedMillionsOfEmptySpans_is413WithBoundedMemory() throws Exception {
        try (ReceiverFixture f = ReceiverFixture.start(dir)) {
            byte[] body = ReceiverFixture.gzip(emptySpans(16_000_000));
            HttpTester.Response response = f.post("/v1/traces", ReceiverFixture.PROTOBUF, body, "Content-Encoding", "gzip");
            assertEquals(413, response.getStatus());
        }
    }

    @Test
    void post_jsonWithMoreLogRecordsThanOneRequestMayHold_is413() throws Exception {
        StringBuilder json = new StringBuilder("{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[");
        for (long i = 0; i <= OtlpReceiver.MAX_RECORDS_PER_REQUEST; i++) {
            json.append(i == 0 ? "{}" : ",{}");
        }
        json.append("]}]}]}");
        try (ReceiverFixture f = ReceiverFixture.start(dir)) {
            HttpTester.Response response = f.post("/v1/logs", ReceiverFixture.JSON,
                    json.toString().getBytes(StandardCharsets.UTF_8));
            assertEquals(413, response.getStatus());
        }
    }

    @Test
    void post_exactlyTheLimit_isAccepted() throws Exception {
        try (ReceiverFixture f = ReceiverFixture.start(dir)) {
            HttpTester.Response response = f.post("/v1/traces", ReceiverFixture.PROTOBUF, emptySpans(1000));
            assertEquals(200, response.getStatus(), "1,000 empty spans decode (and are each rejected as invalid)");
        }
    }
}
