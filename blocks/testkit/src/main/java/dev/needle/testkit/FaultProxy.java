package dev.needle.testkit;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * An HTTP/1.1 proxy in front of an S3-compatible server (S3Proxy in the tests and in
 * {@code needle bench s3}): it forwards every request and answers with the server's response, after a
 * fixed {@link #latency} per request, injects the {@link Fault}s it is given into the requests they
 * match, and keeps a log of the requests it answered ({@link #takeLog}), with when each arrived and
 * when its answer was sent, from which a benchmark tells which requests waited for others. Clients
 * sign for the proxy's address: the {@code Host} header goes to the server unchanged, which is what
 * the signature covers, so point the client at {@link #endpoint} and nothing else changes.
 *
 * <p>Plain sockets, one thread per client connection, one upstream connection per request. Each
 * request body and response body is read whole before it is passed on (test objects, and the ranged
 * GETs of a benchmark, are at most a few MiB);
 * {@code Expect: 100-continue} is answered by the proxy itself. The client's connection is kept
 * alive unless a fault closes it.
 */
public final class FaultProxy implements AutoCloseable {

    /** What an injected fault does to a request it matches. */
    public enum Action {
        /** Answer the fault's status with an S3 error document, without forwarding the request. */
        STATUS,
        /** Wait the fault's delay, then forward. */
        DELAY,
        /** Answer nothing until the client gives up and closes the connection. */
        HANG,
        /**
         * Forward, then send the response's head with its full Content-Length and only the first half
         * of its body, and close the connection. A response that has no body (to a HEAD) is cut
         * before its head.
         */
        TRUNCATE
    }

    /**
     * A fault for the requests whose method is {@code method} (null: any) and whose target (path
     * and query, as sent) contains a match of {@code target}, for the first {@code times} of them
     * (0: every one).
     */
    public record Fault(Action action, int status, Duration delay, String method, Pattern target, int times) {

        public Fault {
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(target, "target");
            if (times < 0) {
                throw new IllegalArgumentException("times must be 0 (always) or positive, got " + times);
            }
        }

        /** Answer {@code status} (500, 503 SlowDown, ...) to every request. */
        public static Fault status(int status) {
            if (status < 400 || status > 599) {
                throw new IllegalArgumentException("an injected status is an error, 400 to 599, got " + status);
            }
            return new Fault(Action.STATUS, status, Duration.ZERO, null, Pattern.compile(""), 0);
        }

        /** Wait {@code delay} before forwarding every request. */
        public static Fault delay(Duration delay) {
            return new Fault(Action.DELAY, 0, delay, null, Pattern.compile(""), 0);
        }

        /** Never answer, every request. */
        public static Fault hang() {
            return new Fault(Action.HANG, 0, Duration.ZERO, null, Pattern.compile(""), 0);
        }

        /** Cut every response short. */
        public static Fault truncate() {
            return new Fault(Action.TRUNCATE, 0, Duration.ZERO, null, Pattern.compile(""), 0);
        }

        /** This fault for the requests of {@code method} whose target contains a match of the regular expression {@code target}. */
        public Fault on(String method, String target) {
            return new Fault(action, status, delay, method, Pattern.compile(target), times);
        }

        /** This fault for the first {@code times} requests it matches only. */
        public Fault times(int times) {
            return new Fault(action, status, delay, method, target, times);
        }

        boolean matches(String requestMethod, String requestTarget) {
            return (method == null || method.equals(requestMethod)) && target.matcher(requestTarget).find();
        }
    }

    /**
     * One request the proxy answered.
     *
     * @param method     the HTTP method
     * @param target     the path and query, as sent
     * @param range      the request's {@code Range} header, or null
     * @param status     the status answered
     * @param bodyBytes  the bytes of the answer's body
     * @param startNanos when the request's head had arrived ({@link System#nanoTime}), before the latency
     * @param endNanos   when the answer's last byte was written to the client
     */
    public record Exchange(String method, String target, String range, int status, long bodyBytes, long startNanos,
                           long endNanos) {
    }

    /** A fault in force: how many requests it acted on, and its removal. */
    public final class Injection {

        private final Fault fault;
        private final AtomicInteger hits = new AtomicInteger();

        private Injection(Fault fault) {
            this.fault = fault;
        }

        /** Takes one use, or says there is none left. */
        private boolean take() {
            if (fault.times() == 0) {
                hits.incrementAndGet();
                return true;
            }
            return hits.getAndUpdate(h -> h < fault.times() ? h + 1 : h) < fault.times();
        }

        /** The requests this fault acted on so far. */
        public int hits() {
            return hits.get();
        }

        /** Ends this fault; requests in its hands already are not changed. */
        public void remove() {
            injections.remove(this);
        }
    }

    private final URI upstream;
    private final ServerSocket listener;
    private final URI endpoint;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final List<Injection> injections = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Exchange> log = new ConcurrentLinkedQueue<>();
    /** Requests read and not yet answered (or given up on). */
    private final AtomicInteger inHand = new AtomicInteger();
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile Duration latency = Duration.ZERO;

    private FaultProxy(URI upstream) throws IOException {
        this.upstream = upstream;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.endpoint = URI.create("http://127.0.0.1:" + listener.getLocalPort());
        threads.execute(this::accept);
    }

    /** Starts a proxy on a free port of 127.0.0.1 in front of {@code upstream} ({@code http://host:port}). */
    public static FaultProxy start(URI upstream) throws IOException {
        return new FaultProxy(upstream);
    }

    /** The proxy's address, for the clients. */
    public URI endpoint() {
        return endpoint;
    }

    /**
     * Holds every request this long before anything else is done with it, as a distant service's
     * first-byte latency would (S3's is some 20 to 100 ms); zero, the default, for none.
     */
    public void latency(Duration perRequest) {
        if (perRequest.isNegative()) {
            throw new IllegalArgumentException("a latency cannot be negative, got " + perRequest);
        }
        latency = perRequest;
    }

    /** Puts {@code fault} in force; the first fault in force that matches a request acts on it. */
    public Injection inject(Fault fault) {
        Injection injection = new Injection(fault);
        injections.add(injection);
        return injection;
    }

    /** Removes every fault: requests are forwarded again (after the {@link #latency}). */
    public void heal() {
        injections.clear();
    }

    /** How many requests of {@code method} arrived since the start, faulted or not. */
    public long requests(String method) {
        AtomicLong count = requests.get(method);
        return count == null ? 0 : count.get();
    }

    /**
     * The requests answered since the last call (or the start), in the order their answers were sent,
     * and empties the log; first waits up to a second for the requests in the proxy's hands, so that a
     * request whose answer a client has already read is in the log. A request the proxy did not answer
     * (a hang, a cut answer) is not in it.
     */
    public List<Exchange> takeLog() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (inHand.get() > 0 && System.nanoTime() < deadline && pause(Duration.ofMillis(1))) {
            // the answers being written are logged right after
        }
        List<Exchange> taken = new ArrayList<>();
        for (Exchange e; (e = log.poll()) != null; ) {
            taken.add(e);
        }
        return taken;
    }

    /** Stops listening and closes every connection; hanging and delayed requests end at once. */
    @Override
    public void close() throws IOException {
        closed.countDown();
        listener.close();
        for (Socket socket : open) {
            socket.close();
        }
        threads.shutdownNow();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                open.add(client);
                threads.execute(() -> serve(client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            for (Message request; (request = Message.readHead(in)) != null; ) {
                if ("100-continue".equalsIgnoreCase(request.header("Expect"))) {
                    out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(ISO_8859_1));
                    out.flush();
                }
                long arrived = System.nanoTime();
                inHand.incrementAndGet();
                try {
                    request = request.withBody(Message.readBody(in, request, false));
                    requests.computeIfAbsent(request.method(), m -> new AtomicLong()).incrementAndGet();
                    if (!pause(latency) || !answer(request, arrived, in, out)
                            || "close".equalsIgnoreCase(request.header("Connection"))) {
                        return;
                    }
                } finally {
                    inHand.decrementAndGet();
                }
            }
        } catch (IOException e) {
            // The client went away, or close() closed the socket: nothing to answer.
        } finally {
            open.remove(client);
        }
    }

    /** Answers one request; false when the connection is to be closed. */
    private boolean answer(Message request, long arrived, InputStream in, OutputStream out) throws IOException {
        Fault fault = null;
        for (Injection injection : injections) {
            if (injection.fault.matches(request.method(), request.target()) && injection.take()) {
                fault = injection.fault;
                break;
            }
        }
        Action action = fault == null ? null : fault.action();
        if (action == Action.STATUS) {
            Message error = errorResponse(request, fault.status());
            error.writeRaw(out, Integer.MAX_VALUE);
            logged(request, error, arrived);
            return true;
        }
        if (action == Action.HANG) {
            // Until the client closes the connection (its timeout), or close() closes it.
            while (in.read() >= 0) {
                // a client that sends more while waiting is not answered either
            }
            return false;
        }
        if (action == Action.DELAY && !pause(fault.delay())) {
            return false;
        }
        Message response = forward(request).framed();
        if (action == Action.TRUNCATE) {
            if (response.body() != null) {
                response.writeRaw(out, response.body().length / 2);
            }
            return false;
        }
        response.writeRaw(out, Integer.MAX_VALUE);
        logged(request, response, arrived);
        return true;
    }

    private void logged(Message request, Message response, long arrived) {
        log.add(new Exchange(request.method(), request.target(), request.header("Range"), response.status(),
                response.body() == null ? 0 : response.body().length, arrived, System.nanoTime()));
    }

    /** The request sent upstream on a connection of its own, and its response, body read whole. */
    private Message forward(Message request) throws IOException {
        try (Socket server = new Socket()) {
            server.connect(new InetSocketAddress(upstream.getHost(), upstream.getPort()), 5_000);
            server.setSoTimeout(30_000);
            List<String> headers = new ArrayList<>();
            for (String header : request.headers()) {
                String name = header.substring(0, header.indexOf(':')).trim();
                // Neither is signed: the proxy answered the Expect, and this connection carries one request.
                if (!name.equalsIgnoreCase("Expect") && !name.equalsIgnoreCase("Connection")) {
                    headers.add(header);
                }
            }
            headers.add("Connection: close");
            new Message(request.startLine(), headers, request.body()).framed().writeRaw(server.getOutputStream(),
                    Integer.MAX_VALUE);
            InputStream in = server.getInputStream();
            Message response = Message.readHead(in);
            if (response == null) {
                throw new EOFException("the server closed the connection without answering " + request.startLine());
            }
            boolean noBody = request.method().equals("HEAD") || response.status() == 204 || response.status() == 304
                    || response.status() / 100 == 1;
            List<String> kept = new ArrayList<>(response.headers());
            // The client's connection stays open, whatever this one does.
            kept.removeIf(h -> h.substring(0, h.indexOf(':')).trim().equalsIgnoreCase("Connection"));
            return new Message(response.startLine(), kept, noBody ? null : Message.readBody(in, response, true));
        }
    }

    private static Message errorResponse(Message request, int status) {
        String code = switch (status) {
            case 500 -> "InternalError";
            case 503 -> "SlowDown";
            default -> "InjectedFault";
        };
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code
                + "</Code><Message>injected by FaultProxy</Message></Error>").getBytes(UTF_8);
        List<String> headers = List.of("Content-Type: application/xml", "Content-Length: " + xml.length);
        return new Message("HTTP/1.1 " + status + " " + code, headers, request.method().equals("HEAD") ? null : xml);
    }

    /** Waits {@code duration}; false if the proxy closed meanwhile. */
    private boolean pause(Duration duration) {
        if (duration.isZero()) {
            return true;
        }
        try {
            return !closed.await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * One HTTP/1.1 request or response: its start line, its header lines, and its body (null for a
     * head without one); a body is kept de-chunked and sent with a Content-Length.
     */
    private record Message(String startLine, List<String> headers, byte[] body) {

        /** A head up to its empty line, or null at the end of the stream before one. */
        static Message readHead(InputStream in) throws IOException {
            String start = readLine(in, false);
            if (start == null) {
                return null;
            }
            List<String> headers = new ArrayList<>();
            for (String line; !(line = readLine(in, true)).isEmpty(); ) {
                if (line.indexOf(':') <= 0) {
                    throw new IOException("not a header line: " + line);
                }
                headers.add(line);
            }
            return new Message(start, headers, null);
        }

        Message withBody(byte[] body) {
            return new Message(startLine, headers, body);
        }

        String method() {
            return startLine.substring(0, startLine.indexOf(' '));
        }

        String target() {
            String[] parts = startLine.split(" ");
            return parts.length > 1 ? parts[1] : "";
        }

        int status() {
            return Integer.parseInt(startLine.split(" ")[1]);
        }

        String header(String name) {
            for (String header : headers) {
                int colon = header.indexOf(':');
                if (header.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return header.substring(colon + 1).trim();
                }
            }
            return null;
        }

        /**
         * The body after this head: Content-Length bytes, or chunks; with neither, a request has none
         * (null) and a response's runs to the end of the stream ({@code toEnd}).
         */
        static byte[] readBody(InputStream in, Message head, boolean toEnd) throws IOException {
            String length = head.header("Content-Length");
            if (length != null) {
                return readExactly(in, Integer.parseInt(length));
            }
            String encoding = head.header("Transfer-Encoding");
            if (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                for (int size; (size = Integer.parseInt(readLine(in, true).split(";")[0].trim(), 16)) > 0; ) {
                    body.write(readExactly(in, size));
                    readLine(in, true);
                }
                while (!readLine(in, true).isEmpty()) {
                    // trailers are not passed on
                }
                return body.toByteArray();
            }
            return toEnd ? in.readAllBytes() : null;
        }

        /** This message with its body, if any, framed by a Content-Length of its own instead of its own framing. */
        Message framed() {
            if (body == null) {
                return this;
            }
            List<String> framed = new ArrayList<>();
            for (String header : headers) {
                String name = header.substring(0, header.indexOf(':')).trim();
                if (!name.equalsIgnoreCase("Transfer-Encoding") && !name.equalsIgnoreCase("Content-Length")) {
                    framed.add(header);
                }
            }
            framed.add("Content-Length: " + body.length);
            return new Message(startLine, framed, body);
        }

        /** Writes the start line, the headers as they are, and the first {@code bodyBytes} of the body if any. */
        void writeRaw(OutputStream out, int bodyBytes) throws IOException {
            StringBuilder head = new StringBuilder(startLine).append("\r\n");
            for (String header : headers) {
                head.append(header).append("\r\n");
            }
            out.write(head.append("\r\n").toString().getBytes(ISO_8859_1));
            if (body != null) {
                out.write(body, 0, Math.min(bodyBytes, body.length));
            }
            out.flush();
        }

        private static byte[] readExactly(InputStream in, int length) throws IOException {
            byte[] bytes = in.readNBytes(length);
            if (bytes.length < length) {
                throw new EOFException("the stream ended " + (length - bytes.length) + " bytes before the body did");
            }
            return bytes;
        }

        /**
         * A line without its CRLF; at the end of the stream before any byte of it, null, or an
         * EOFException if the line {@code required}.
         */
        private static String readLine(InputStream in, boolean required) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) != '\n'; ) {
                if (c < 0) {
                    if (line.length() == 0 && !required) {
                        return null;
                    }
                    throw new EOFException("the stream ended inside a line");
                }
                line.append((char) c);
            }
            int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? line.length() - 1 : line.length();
            return line.substring(0, end);
        }
    }
}
