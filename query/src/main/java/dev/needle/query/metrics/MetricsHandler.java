package dev.needle.query.metrics;

import dev.needle.query.http.ApiReply;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves a {@link PrometheusRegistry} in the Prometheus text format (version 0.0.4) to GET; it
 * answers every request it is given, so the server mounts it at {@code /metrics}.
 */
public final class MetricsHandler extends Handler.Abstract {

    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    /** A handler serving {@code registry}. */
    public MetricsHandler(PrometheusRegistry registry) {
        this.registry = registry;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        reply(request).send(response, callback);
        return true;
    }

    private ApiReply reply(Request request) {
        if (!HttpMethod.GET.is(request.getMethod())) {
            return ApiReply.text(405, request.getMethod() + " is not allowed: use GET");
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            writer.write(out, registry.scrape());
            return new ApiReply(200, writer.getContentType(), out.toByteArray());
        } catch (Exception e) {
            // A collector's callback can throw; the scrape fails, the server does not.
            return ApiReply.text(500, "scrape failed: " + e);
        }
    }
}
