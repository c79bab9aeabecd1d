package dev.needle.ingest.http;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpDecodeException;
import dev.needle.blocks.otlp.OtlpTooManyRecordsException;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.IngestRefusedException;
import dev.needle.ingest.Ingestor;
import dev.needle.ingest.http.ReceiverMetrics.Rejection;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OTLP/HTTP receiver (port 4318): decodes export requests and hands their records to an
 * {@link Ingestor}, replying once they are durable.
 *
 * <pre>
 * request                                                   reply
 * POST /v1/traces, POST /v1/logs, decodable                 200 Export…ServiceResponse in the request's encoding,
 *                                                           partial_success when records were rejected
 * a path other than /v1/traces and /v1/logs                 404
 * a method other than POST                                  405, Allow: POST
 * Content-Type not application/x-protobuf or
 *   application/json (parameters allowed), or none          415
 * Content-Encoding other than gzip or identity              415
 * X-Scope-OrgID not a valid tenant id                       400
 * Content-Length over the limit                             413, before decoding
 * body over the limit, received or once inflated            413, stopped at the limit
 * (a refused body's rest is read and dropped, up to 256 MiB past the limit, so that a client
 *  still writing it reads the 413 instead of a reset connection)
 * body that is not an OTLP request (or not gzip)            400
 * the head within a request of its bound                    429, Retry-After, before decoding (the body is read and
 *                                                           dropped after the reply when its Content-Length is known)
 * ingest refuses (head or write-ahead log over its bound)   429 or 503, Retry-After
 * ingest fails (interrupted)                                503, Retry-After
 * anything unexpected                                       500, logged
 * </pre>
 *
 * <p>Every reply but a 200 has a {@code google.rpc.Status} body (code and message), in the
 * request's encoding when its Content-Type names one and in JSON otherwise; every reply's
 * Content-Type is exactly {@code application/x-protobuf} or {@code application/json}. Tenants
 * come from {@code X-Scope-OrgID} ({@code single-tenant} when absent).
 */
public final class OtlpReceiver extends Handler.Abstract {

    /** The default limit on a request body, after decompression: 20 MiB, the OpenTelemetry Collector's own. */
    public static final long DEFAULT_MAX_BODY_BYTES = 20L << 20;
    /**
     * The most records one request may hold (413 beyond). The byte limit alone does not bound
     * memory: 64 MiB of two-byte empty spans would decode into tens of millions of objects.
     * Exporters send far fewer (the Collector's default batch is 8,192, the SDKs' 512).
     */
    public static final long MAX_RECORDS_PER_REQUEST = 100_000;
    /** How much of a refused body is read past the limit before the connection is given up. */
    private static final long DISCARD_BYTES = 256L << 20;

    private static final Logger LOG = LoggerFactory.getLogger(OtlpReceiver.class);
    private static final String TENANT_HEADER = "X-Scope-OrgID";
    /** How much of a header value or path a reply quotes. */
    private static final int QUOTE_LIMIT = 100;

    /**
     * The most that protobuf body arrays kept for the next request hold between requests: 8 requests
     * in flight of 2 MiB each (the Collector's default batch of 8,192 spans). Out of the heap the
     * {@code MemoryPlan} leaves to the HTTP server.
     */
    private static final long KEPT_BODY_BYTES = 16L << 20;

    private static final Endpoint<SpanRecord> TRACES = new Endpoint<>("/v1/traces", SignalKind.SPANS,
            Ingestor::acceptSpans);
    private static final Endpoint<LogRecord> LOGS = new Endpoint<>("/v1/logs", SignalKind.LOGS,
            Ingestor::acceptLogs);

    private final Ingestor ingestor;
    private final ReceiverMetrics metrics;
    private final long maxBodyBytes;
    private final DecodeBudget heap;
    private final BodyBuffers buffers = new BodyBuffers(KEPT_BODY_BYTES);

    /**
     * A receiver handing records to {@code ingestor}, refusing bodies over {@code maxBodyBytes}
     * decompressed, decoding within {@code heap}.
     */
    public OtlpReceiver(Ingestor ingestor, ReceiverMetrics metrics, long maxBodyBytes, DecodeBudget heap) {
        // Blocking: a request waits for its body and then for the write-ahead log's fsync.
        super(InvocationType.BLOCKING);
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("maxBodyBytes must be positive, got " + maxBodyBytes);
        }
        this.ingestor = Objects.requireNonNull(ingestor, "ingestor");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        if (maxBodyBytes > heap.maxBodyBytes()) {
            throw new IllegalArgumentException("a body of " + maxBodyBytes + " bytes would not fit the decode budget of "
                    + heap.bytes() + " bytes of heap");
        }
        this.maxBodyBytes = maxBodyBytes;
        this.heap = heap;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        Endpoint<?> endpoint = TRACES.path().equals(path) ? TRACES : LOGS.path().equals(path) ? LOGS : null;
        Encoding encoding = Encoding.ofContentType(request.getHeaders().get(HttpHeader.CONTENT_TYPE));
        // An error is answered in the request's encoding when it names one, else in JSON: such a client sent no
        // protobuf and is likely a person with curl, who would see a protobuf Status as a stray byte and text.
        Encoding replyIn = encoding != null ? encoding : Encoding.JSON;
        ExportReply reply;
        try {
            reply = endpoint == null
                    ? ExportReply.error(404, replyIn, "no OTLP endpoint at " + quote(path)
                            + ": POST spans to /v1/traces and log records to /v1/logs")
                    : serve(endpoint, request, encoding, replyIn);
        } catch (RuntimeException e) {
            // Bad input is answered above with a 4xx; this is needle's own fault.
            LOG.error("OTLP request {} {} failed", request.getMethod(), path, e);
            reply = ExportReply.error(500, replyIn, "internal error: " + e);
        }
        // Counted before the write, so that a client that has its reply also finds it counted.
        metrics.answered(endpoint == null ? ReceiverMetrics.OTHER : endpoint.signal().dirName(),
                encoding == null ? ReceiverMetrics.OTHER : encoding.label(), reply.status(),
                System.nanoTime() - request.getHeadersNanoTime());
        if (unreadBodyToDiscard(request, reply)) {
            // Replied first: a client that waits for the reply before it sends has it at once.
            reply.send(response, Callback.from(() -> Content.Source.consumeAll(request, callback), callback::failed));
        } else {
            reply.send(response, callback);
        }
        return true;
    }

    /**
     * Whether a refused body was announced by its Content-Length and may be unread: its bytes are read
     * and dropped after the reply, so that a client still writing it reads the 413 instead of a reset,
     * and one refused with a 429 keeps its connection (a body read already ends at once). Not with
     * {@code Expect: 100-continue}: that client sends nothing after a final status.
     */
    private boolean unreadBodyToDiscard(Request request, ExportReply reply) {
        long length = request.getLength();
        boolean discard = reply.status() == 413 && length > maxBodyBytes && length <= maxBodyBytes + DISCARD_BYTES
                || reply.status() == 429 && length >= 0 && length <= maxBodyBytes;
        return discard && !request.getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString());
    }

    private <T> ExportReply serve(Endpoint<T> endpoint, Request request, Encoding encoding, Encoding replyIn) {
        Signal signal = endpoint.signal();
        if (!HttpMethod.POST.is(request.getMethod())) {
            return ExportReply.error(405, replyIn, quote(request.getMethod()) + " is not allowed on " + endpoint.path()
                    + ": OTLP exports are POSTed").with(HttpHeader.ALLOW, "POST");
        }
        if (encoding == null) {
            String contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
            metrics.rejectedRequest(signal, Rejection.UNSUPPORTED_MEDIA_TYPE);
            return ExportReply.error(415, replyIn, (contentType == null ? "no Content-Type" : "unsupported Content-Type "
                    + quote(contentType)) + ": send application/x-protobuf or application/json");
        }
        List<String> codings = codings(request);
        boolean gzip = codings.size() == 1 && (codings.get(0).equals("gzip") || codings.get(0).equals("x-gzip"));
        if (!codings.isEmpty() && !gzip) {
            metrics.rejectedRequest(signal, Rejection.UNSUPPORTED_MEDIA_TYPE);
            return ExportReply.error(415, encoding, "unsupported Content-Encoding " + quote(String.join(", ", codings))
                    + ": send gzip or no Content-Encoding");
        }
        TenantId tenant;
        try {
            tenant = TenantId.fromHeader(request.getHeaders().get(TENANT_HEADER));
        } catch (IllegalArgumentException e) {
            metrics.rejectedRequest(signal, Rejection.INVALID_TENANT);
            return ExportReply.error(400, encoding, "invalid " + TENANT_HEADER + ": " + e.getMessage());
        }
        long length = request.getLength();
        if (length > maxBodyBytes) {
            metrics.rejectedRequest(signal, Rejection.TOO_LARGE);
            return ExportReply.error(413, encoding, "the request body has " + length
                    + " bytes (Content-Length), more than the limit of " + maxBodyBytes);
        }
        try {
            ingestor.admit();
        } catch (IngestRefusedException e) {
            // Before the body is read: a refusal then costs no decode, whose CPU the publisher needs.
            metrics.rejectedRequest(signal, Rejection.REFUSED);
            return refused(encoding, e);
        }

        // Given back once the records are in the head, which bounds them from then on.
        try (DecodeBudget.Reservation reservation = heap.reserve()) {
            return decodeAndAccept(endpoint, request, encoding, gzip, tenant, reservation);
        }
    }

    private <T> ExportReply decodeAndAccept(Endpoint<T> endpoint, Request request, Encoding encoding, boolean gzip,
                                      TenantId tenant, DecodeBudget.Reservation reservation) {
        Signal signal = endpoint.signal();
        Received<T> received;
        RequestBody body = new RequestBody(Content.Source.asInputStream(request), gzip, maxBodyBytes, reservation);
        try {
            // A gzip body's Content-Length is not its decoded length.
            received = endpoint.decode(encoding, body.open(), gzip ? -1 : request.getLength(), buffers);
        } catch (OtlpTooManyRecordsException e) {
            metrics.rejectedRequest(signal, Rejection.TOO_LARGE);
            body.discardRest(maxBodyBytes + DISCARD_BYTES);
            return ExportReply.error(413, encoding, e.getMessage());
        } catch (IOException e) {
            if (body.busy()) {
                metrics.rejectedRequest(signal, Rejection.REFUSED);
                body.discardRest(maxBodyBytes);
                return ExportReply.error(503, encoding, e.getMessage()).with(HttpHeader.RETRY_AFTER, "1");
            }
            if (body.tooLarge()) {
                body.discardRest(DISCARD_BYTES);
            }
            return undecodable(signal, encoding, gzip, body, e);
        } finally {
            // Before the wait for the fsync: the body's buffers and inflater are not needed any more.
            body.close();
            metrics.received(signal, body.wireBytes());
        }

        Decoded<T> decoded = received.decoded();
        BodyBuffers.Body logged = received.protobuf();
        try {
            endpoint.sink().accept(ingestor, tenant, decoded.records(), logged == null ? null : logged.array(),
                    logged == null ? 0 : logged.length());
        } catch (IngestRefusedException e) {
            giveBack(logged);
            metrics.rejectedRequest(signal, Rejection.REFUSED);
            metrics.rejectedRecords(signal, Rejection.REFUSED, decoded.records().size());
            return refused(encoding, e);
        } catch (IOException e) {
            // The body's array is not given back: a wait that failed may have left it in the log.
            // Not acknowledged, so the client must retry, and OTLP exporters retry a 503; if the log
            // took the records after all, the retry duplicates them rather than losing them.
            LOG.warn("OTLP {}: ingest failed, answering 503", endpoint.path(), e);
            return ExportReply.error(503, encoding, "ingest failed, retry: " + describe(e))
                    .with(HttpHeader.RETRY_AFTER, "1");
        }
        giveBack(logged);
        metrics.accepted(signal, decoded.records().size());
        if (decoded.rejected() > 0) {
            metrics.rejectedRecords(signal, Rejection.INVALID, decoded.rejected());
        }
        return ExportReply.ok(encoding, encoding.exportResponse(signal, decoded.rejected(), decoded.message()));
    }

    /** Gives a logged body's array back to the buffers once the write-ahead log is done with it. */
    private void giveBack(BodyBuffers.Body logged) {
        if (logged != null) {
            buffers.give(logged.array());
        }
    }

    private static ExportReply refused(Encoding encoding, IngestRefusedException e) {
        return ExportReply.error(e.httpStatus(), encoding, e.getMessage())
                .with(HttpHeader.RETRY_AFTER, Integer.toString(e.retryAfterSeconds()));
    }

    /**
     * The content codings applied to the body, lower-case, without {@code identity} and empty
     * elements. Split by hand: codings are tokens, and Jetty's quoted-string parsing of the header
     * throws (a 500) on a stray quote.
     */
    private static List<String> codings(Request request) {
        List<String> codings = new ArrayList<>();
        for (String value : request.getHeaders().getValuesList(HttpHeader.CONTENT_ENCODING)) {
            for (String coding : value.split(",", -1)) {
                String c = coding.trim().toLowerCase(Locale.ROOT);
                if (!c.isEmpty() && !c.equals("identity")) {
                    codings.add(c);
                }
            }
        }
        return codings;
    }

    /** The reply to a body that could not be read to a request: too large, cut off, or not one. */
    private ExportReply undecodable(Signal signal, Encoding encoding, boolean gzip, RequestBody body, IOException e) {
        // The body's own flags first: a decoder may have wrapped the stream's exception.
        if (body.tooLarge()) {
            metrics.rejectedRequest(signal, Rejection.TOO_LARGE);
            return ExportReply.error(413, encoding, body.tooLargeMessage());
        }
        metrics.rejectedRequest(signal, Rejection.UNDECODABLE);
        String message;
        if (body.unreadable()) {
            message = "the request body could not be read: " + describe(e);
        } else if (e instanceof OtlpDecodeException) {
            message = e.getMessage();
        } else if (gzip) {
            // The decoders report bad bytes as OtlpDecodeException, so this came from inflating.
            message = "the body is not valid gzip: " + describe(e);
        } else {
            message = "the body cannot be decoded: " + describe(e);
        }
        LOG.debug("OTLP request refused with 400: {}", message);
        return ExportReply.error(400, encoding, message);
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** {@code s} in quotes, cut short: it comes from the client and goes into a reply. */
    private static String quote(String s) {
        return "'" + (s.length() <= QUOTE_LIMIT ? s : s.substring(0, QUOTE_LIMIT) + "…") + "'";
    }

    /**
     * Reads the body into an array of the buffers, decodes it, and keeps the array for the write-ahead log
     * when every record was accepted (it is then given back after the append), or gives it back at once.
     */
    private static <T> Received<T> protobuf(SignalKind<T> kind, InputStream in, long length, BodyBuffers buffers)
            throws IOException {
        BodyBuffers.Body body = buffers.read(in, length);
        Decoded<T> decoded;
        try {
            decoded = kind.decodeWire(body.array(), body.length(), MAX_RECORDS_PER_REQUEST);
        } catch (IOException | RuntimeException e) {
            buffers.give(body.array());
            throw e;
        }
        if (decoded.rejected() > 0) {
            buffers.give(body.array());
            return Received.of(decoded);
        }
        return new Received<>(decoded, body);
    }

    private interface Sink<T> {
        void accept(Ingestor ingestor, TenantId tenant, List<T> records, byte[] protobuf, int length)
                throws IngestRefusedException, IOException;
    }

    /**
     * A request's records, and its protobuf body when it holds exactly those records (protobuf,
     * nothing rejected), so that the write-ahead log takes it as it came instead of encoding anew.
     */
    private record Received<T>(Decoded<T> decoded, BodyBuffers.Body protobuf) {

        /** Records the log encodes itself. */
        static <T> Received<T> of(Decoded<T> decoded) {
            return new Received<>(decoded, null);
        }
    }

    /** One signal's path, records and ingest call. */
    private record Endpoint<T>(String path, SignalKind<T> kind, Sink<T> sink) {

        Signal signal() {
            return kind.signal();
        }

        /** Decodes a body whose decoded length is {@code length} when known, else -1. */
        Received<T> decode(Encoding encoding, InputStream body, long length, BodyBuffers buffers) throws IOException {
            return encoding == Encoding.PROTOBUF ? protobuf(kind, body, length, buffers)
                    : Received.of(kind.decodeJson(body, MAX_RECORDS_PER_REQUEST));
        }
    }
}
