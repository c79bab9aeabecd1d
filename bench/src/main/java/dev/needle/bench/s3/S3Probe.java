package dev.needle.bench.s3;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needle.bench.scenario.Scenarios;
import dev.needle.bench.server.QueryClient;
import dev.needle.corpus.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One probe of a corpus's manifest as a user asks it over HTTP: a trace by id
 * ({@code /api/v2/traces/{id}}), a span search ({@code /api/search}) or a log search
 * ({@code /api/logs}), with how much of the reply must be found.
 *
 * @param group    the row of the report it is summed up in, such as {@code trace, absent}
 * @param name     the probe, for messages
 * @param path     the path and query asked for, without {@code explain} and {@code disable}
 * @param kind     what the reply lists
 * @param family   the trace-id family of a trace lookup's id, such as {@code random}; null for a search
 * @param minFound the fewest spans, traces or log records the reply must hold
 * @param maxFound the most
 */
public record S3Probe(String group, String name, String path, Kind kind, String family, long minFound, long maxFound) {

    /** The records a search asks for at most, as {@code ./needle bench} asks. */
    public static final int LIMIT = 20;

    /** What a reply lists. */
    public enum Kind {
        /** The spans of one trace. */
        TRACE("trace"),
        /** Traces that hold a matching span. */
        SPAN_SEARCH("span"),
        /** Matching log records. */
        LOG_SEARCH("log");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        /** The word the command line takes: {@code trace}, {@code span}, {@code log}. */
        String word() {
            return word;
        }
    }

    /** The report's rows, in order. */
    public static final List<String> GROUPS = List.of("trace, present", "trace, absent", "span attribute, present",
            "span attribute, absent", "log attribute, present", "log attribute, absent");

    /** Every probe of {@code manifest}: each present and absent trace id of each family, each present and absent attribute value. */
    public static List<S3Probe> all(Manifest manifest) {
        List<S3Probe> out = new ArrayList<>();
        for (Map.Entry<String, List<Manifest.PresentTrace>> family : manifest.presentTraceIds().entrySet()) {
            for (Manifest.PresentTrace t : family.getValue()) {
                out.add(new S3Probe("trace, present", "trace " + t.id() + " (" + family.getKey() + ")",
                        "/api/v2/traces/" + t.id(), Kind.TRACE, family.getKey(), t.spans(), t.spans()));
            }
        }
        for (Map.Entry<String, List<String>> family : manifest.absentTraceIds().entrySet()) {
            for (String id : family.getValue()) {
                out.add(new S3Probe("trace, absent", "trace " + id + " (" + family.getKey() + ", absent)",
                        "/api/v2/traces/" + id, Kind.TRACE, family.getKey(), 0, 0));
            }
        }
        for (List<Manifest.AttributeProbe> probes : List.of(manifest.presentAttributes(), manifest.absentAttributes())) {
            for (Manifest.AttributeProbe p : probes) {
                boolean logs = p.signal().equals("logs");
                boolean present = p.count() > 0;
                String condition = Scenarios.condition(p);
                String path = (logs ? "/api/logs" : "/api/search") + "?q=" + QueryClient.encode("{ " + condition + " }")
                        + "&limit=" + LIMIT;
                long most = Math.min(p.count(), LIMIT);
                // A span search lists traces: at least one when a span matches, never more than the matching spans.
                out.add(new S3Probe((logs ? "log" : "span") + " attribute, " + (present ? "present" : "absent"),
                        p.signal() + ": " + condition, path, logs ? Kind.LOG_SEARCH : Kind.SPAN_SEARCH, null,
                        logs ? most : Math.min(1, most), most));
            }
        }
        return out;
    }

    /**
     * Whether {@code word} of {@code --only} names this probe: its kind ({@code trace}, {@code span},
     * {@code log}), or {@code trace:FAMILY} for a trace lookup of that family.
     */
    boolean namedBy(String word) {
        return word.equals(kind.word()) || (kind == Kind.TRACE && word.equals("trace:" + family));
    }

    /** The spans, traces or log records {@code reply} holds, as this probe's kind lists them. */
    public long found(JsonNode reply) {
        long n = 0;
        switch (kind) {
            case TRACE -> {
                for (JsonNode resource : reply.path("trace").path("resourceSpans")) {
                    for (JsonNode scope : resource.path("scopeSpans")) {
                        n += scope.path("spans").size();
                    }
                }
            }
            case SPAN_SEARCH -> n = reply.path("traces").size();
            case LOG_SEARCH -> {
                for (JsonNode resource : reply.path("logs").path("resourceLogs")) {
                    for (JsonNode scope : resource.path("scopeLogs")) {
                        n += scope.path("logRecords").size();
                    }
                }
            }
        }
        return n;
    }
}
