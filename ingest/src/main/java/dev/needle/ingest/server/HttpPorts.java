package dev.needle.ingest.server;

import dev.needle.ingest.http.OtlpReceiver;
import dev.needle.query.head.HeadEndpoint;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The server's HTTP side, wired before anything is opened: one Jetty {@link Server} with two connectors,
 * named {@value #OTLP} and {@value #QUERY}. Each port's handlers sit in a {@link ContextHandler} whose
 * only virtual host is {@code @name}, which Jetty matches against the connector a request arrived on; so
 * an OTLP path on the query port, or a query path on the OTLP port, is a 404. One server rather than two
 * means one thread pool, one lifecycle, and one graceful stop that drains both ports together.
 *
 * <pre>
 * OTLP port   /v1/traces, /v1/logs   {@link OtlpReceiver}, in {@link #otlp}
 * query port  /ready                 {@link ReadyHandler}
 *             /metrics               Prometheus text: receiver, query and ingest metrics
 *             /internal/head/…       the unpublished records, for query nodes ({@link HeadEndpoint}), in {@link #head}
 *             anything else          {@link QueryApi}, in {@link #query}
 * </pre>
 *
 * <p>The handlers behind the gates are set once recovery is done; until then each gate answers 503.
 */
final class HttpPorts {

    /** The OTLP connector's name, and its context's virtual host {@code @otlp}. */
    static final String OTLP = "otlp";
    /** The query connector's name, and its context's virtual host {@code @query}. */
    static final String QUERY = "query";

    /** How long a graceful stop waits for requests in flight. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    /** The OTLP port's handler: the receiver, once recovered. */
    final RecoveryGate otlp = new RecoveryGate();
    /** The query port's handler past /ready, /metrics and the head: the query API, once recovered. */
    final RecoveryGate query = new RecoveryGate();
    /** The head for query nodes, once recovered. */
    final RecoveryGate head = new RecoveryGate();

    private final ServerConfig config;
    private final Server server;
    private final ServerConnector otlpConnector;
    private final ServerConnector queryConnector;
    private InetSocketAddress otlpAddress;
    private InetSocketAddress queryAddress;

    /**
     * Wires the ports of {@code config}'s role; nothing listens until {@link #listen}.
     *
     * @param notReady why {@code /ready} says 503, or null when it says 200
     */
    HttpPorts(ServerConfig config, Supplier<String> notReady, PrometheusRegistry registry) {
        this.config = config;
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("needle-http");
        this.server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        this.otlpConnector = config.cluster().role().ingests() ? connector(OTLP, config.listen().otlpPort(), http) : null;
        this.queryConnector = connector(QUERY, config.listen().queryPort(), http);

        PathMappingsHandler queryPaths = new PathMappingsHandler();
        queryPaths.addMapping(PathSpec.from("/ready"), new ReadyHandler(notReady));
        queryPaths.addMapping(PathSpec.from("/metrics"), new MetricsHandler(registry));
        if (config.cluster().role().ingests()) {
            queryPaths.addMapping(PathSpec.from(HeadEndpoint.PATH + "*"), head);
        }
        queryPaths.addMapping(PathSpec.from("/"), query);
        ContextHandlerCollection contexts = new ContextHandlerCollection(onConnector(QUERY, queryPaths));
        if (otlpConnector != null) {
            contexts.addHandler(onConnector(OTLP, otlp));
        }
        // GracefulHandler: on stop, requests in flight (an OTLP request waiting for its fsync) finish.
        server.setHandler(new GracefulHandler(contexts));
        server.setStopTimeout(STOP_TIMEOUT.toMillis());
    }

    private ServerConnector connector(String name, int port, HttpConfiguration http) {
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setName(name);
        connector.setHost(config.listen().bind());
        connector.setPort(port);
        server.addConnector(connector);
        return connector;
    }

    /** A context at {@code /} that takes only the requests arriving on the connector named {@code connector}. */
    private static ContextHandler onConnector(String connector, Handler handler) {
        ContextHandler context = new ContextHandler(handler, "/");
        context.setVirtualHosts(List.of("@" + connector));
        context.setDisplayName(connector);
        return context;
    }

    /** Binds both ports and serves; the gates answer 503 until their handlers are set. */
    void listen() throws IOException {
        try {
            server.start();
        } catch (Exception e) {
            // Binding is what fails in practice: a port in use, an address this host does not have.
            throw new IOException("cannot listen on " + config.listen().bind() + " (OTLP port " + config.listen().otlpPort()
                    + ", query port " + config.listen().queryPort() + "): " + e.getMessage(), e);
        }
        // Kept, because a stopped connector no longer reports its port.
        queryAddress = new InetSocketAddress(config.listen().bind(), queryConnector.getLocalPort());
        if (otlpConnector != null) {
            otlpAddress = new InetSocketAddress(config.listen().bind(), otlpConnector.getLocalPort());
        }
    }

    /** Answers the query port's queries with a 404 that says where they go: an ingest node's. */
    void refuseQueries() {
        query.setHandler(new NotHere());
    }

    /** Whether the ports were started and not yet stopped. */
    boolean running() {
        return server.isRunning();
    }

    /** Stops accepting and waits (up to 10 seconds) for requests in flight. */
    void stop() throws Exception {
        server.stop();
    }

    /** The address the OTLP port is bound to, with the actual port when 0 was asked for; null on a query node. */
    InetSocketAddress otlpAddress() {
        return otlpAddress;
    }

    /** The address the query port is bound to, with the actual port when 0 was asked for. */
    InetSocketAddress queryAddress() {
        return queryAddress;
    }

    /** {@code host:port}, with an IPv6 host in brackets, as a URL writes it. */
    static String hostPort(InetSocketAddress address) {
        String host = address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** An ingest node's query port, past its head, /ready and /metrics: a 404 that says where queries go. */
    private static final class NotHere extends Handler.Abstract.NonBlocking {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            PlainText.send(response, callback, 404, "this is an ingest node (--role ingest): send queries to a query node");
            return true;
        }
    }
}
