package dev.needle.query.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.query.engine.Explain;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one lookup answered, whether from a data directory or from a server, and how it prints: a
 * table or tree for people, or the fields of the HTTP API's JSON document for machines.
 */
sealed interface Answer permits Answer.Trace, Answer.Spans, Answer.Traces, Answer.Logs {

    /** One message per block that could not be read; the answer is partial when there is any. */
    List<String> problems();

    /** The plans, one per signal looked up; empty unless asked for. */
    List<Explain> plans();

    /** Prints the records for people. */
    void print(PrintWriter out);

    /** Writes the records' fields into the JSON object {@code g} is in, as the HTTP API names them. */
    void writeFields(JsonGenerator g) throws IOException;

    /** Every span of one trace, and its log records when they were asked for. */
    record Trace(Bytes traceId, List<SpanRecord> spans, List<LogRecord> logs, boolean withLogs, List<String> problems,
                 List<Explain> plans) implements Answer {

        public Trace {
            // By start time whatever the source: a server's OTLP answer is grouped by resource instead.
            spans = spans.stream().sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
            logs = logs.stream().sorted(Comparator.comparingLong(LogRecord::eventTimeUnixNano)).toList();
            problems = List.copyOf(problems);
            plans = List.copyOf(plans);
        }

        @Override
        public void print(PrintWriter out) {
            long start = spans.stream().mapToLong(SpanRecord::startTimeUnixNano).min().orElse(0);
            if (!spans.isEmpty()) {
                long end = spans.stream().mapToLong(SpanRecord::endTimeUnixNano).max().orElseThrow();
                long services = spans.stream().map(s -> Text.service(s.resource())).distinct().count();
                out.printf("trace %s: %s, %s, started %s, lasted %s%n%n", traceId.hex(),
                        Text.count(spans.size(), "span"), Text.count(services, "service"), Text.time(start),
                        Text.duration(end - start));
                Text.Table table = new Text.Table(">offset", ">duration", "status", "span id", "service: span");
                for (Placed p : tree(spans)) {
                    SpanRecord s = p.span();
                    table.row(Text.duration(s.startTimeUnixNano() - start), Text.duration(s.durationNano()),
                            Text.status(s.statusCode()), s.spanId().hex(),
                            "  ".repeat(p.depth()) + Text.service(s.resource()) + ": " + Text.cut(s.name(), 200)
                                    + (s.statusMessage().isEmpty() ? "" : " (" + Text.cut(s.statusMessage(), 200) + ")"));
                }
                table.print(out);
            }
            if (withLogs && !logs.isEmpty()) {
                if (spans.isEmpty()) {
                    start = logs.get(0).eventTimeUnixNano();
                    out.printf("trace %s: no spans; log records from %s%n", traceId.hex(), Text.time(start));
                }
                out.printf("%n%s%n", Text.count(logs.size(), "log record"));
                Text.Table table = new Text.Table(">offset", "severity", "span id", "service", "body");
                for (LogRecord r : logs) {
                    table.row(Text.duration(r.eventTimeUnixNano() - start), Text.severity(r.severityNumber(),
                            r.severityText()), r.spanId().isEmpty() ? "-" : r.spanId().hex(),
                            Text.service(r.resource()), Text.cut(Text.value(r.body()), Text.BODY_WIDTH));
                }
                table.print(out);
            } else if (withLogs && !spans.isEmpty()) {
                out.printf("%nno log records%n");
            }
        }

        @Override
        public void writeFields(JsonGenerator g) throws IOException {
            g.writeObjectFieldStart("trace");
            OtlpJson.writeResourceSpans(g, spans);
            g.writeEndObject();
            if (withLogs) {
                g.writeObjectFieldStart("logs");
                OtlpJson.writeResourceLogs(g, logs);
                g.writeEndObject();
            }
        }

        /** A span and how deep it sits in the tree. */
        private record Placed(SpanRecord span, int depth) {
        }

        /**
         * The spans depth first, children by start time under their parent. A span whose parent is
         * not in the answer is a root; spans caught in a parent cycle, which no root reaches, come
         * last as roots, so that every span prints exactly once.
         */
        private static List<Placed> tree(List<SpanRecord> spans) {
            Set<Bytes> ids = new HashSet<>();
            spans.forEach(s -> ids.add(s.spanId()));
            Map<Bytes, List<Integer>> children = new HashMap<>();
            List<Integer> roots = new ArrayList<>();
            for (int i = 0; i < spans.size(); i++) {
                Bytes parent = spans.get(i).parentSpanId();
                if (parent.isEmpty() || !ids.contains(parent)) {
                    roots.add(i);
                } else {
                    children.computeIfAbsent(parent, k -> new ArrayList<>()).add(i);
                }
            }
            for (int i = 0; i < spans.size(); i++) {
                roots.add(i); // already printed ones are passed over below
            }
            List<Placed> placed = new ArrayList<>(spans.size());
            boolean[] done = new boolean[spans.size()];
            // An explicit stack: a hostile trace may nest deeper than the call stack goes.
            Deque<int[]> stack = new ArrayDeque<>();
            for (int root : roots) {
                stack.push(new int[] {root, 0});
                while (!stack.isEmpty()) {
                    int[] top = stack.pop();
                    if (done[top[0]]) {
                        continue;
                    }
                    done[top[0]] = true;
                    SpanRecord s = spans.get(top[0]);
                    placed.add(new Placed(s, top[1]));
                    List<Integer> kids = children.getOrDefault(s.spanId(), List.of());
                    for (int k = kids.size() - 1; k >= 0; k--) {
                        stack.push(new int[] {kids.get(k), top[1] + 1});
                    }
                }
            }
            return placed;
        }
    }

    /** The spans a search found, newest first: from a data directory, which answers spans. */
    record Spans(List<SpanRecord> spans, int limit, List<String> problems, List<Explain> plans) implements Answer {

        public Spans {
            spans = List.copyOf(spans);
            problems = List.copyOf(problems);
            plans = List.copyOf(plans);
        }

        @Override
        public void print(PrintWriter out) {
            if (!spans.isEmpty()) {
                Text.Table table = new Text.Table("time", "trace id", "service", "name", ">duration", "status");
                for (SpanRecord s : spans) {
                    table.row(Text.time(s.startTimeUnixNano()), s.traceId().hex(), Text.service(s.resource()),
                            Text.cut(s.name(), 60), Text.duration(s.durationNano()), Text.status(s.statusCode()));
                }
                table.print(out);
            }
            out.println(footer(spans.size(), limit, "span"));
        }

        @Override
        public void writeFields(JsonGenerator g) throws IOException {
            g.writeObjectFieldStart("spans");
            OtlpJson.writeResourceSpans(g, spans);
            g.writeEndObject();
        }
    }

    /** The traces a search found, newest first, in Tempo's shape (a server's search, or TraceQL beyond one selector): see {@link TraceSummary}. */
    record Traces(List<TraceSummary> traces, int limit, List<String> problems, List<Explain> plans) implements Answer {

        public Traces {
            traces = List.copyOf(traces);
            problems = List.copyOf(problems);
            plans = List.copyOf(plans);
        }

        @Override
        public void print(PrintWriter out) {
            if (!traces.isEmpty()) {
                Text.Table table = new Text.Table("start", "trace id", "root service", "root span", ">duration");
                for (TraceSummary t : traces) {
                    table.row(Text.time(t.startTimeUnixNano()), t.traceId(), Text.cut(t.rootServiceName(), 40),
                            t.rootTraceName().isEmpty() ? "-" : Text.cut(t.rootTraceName(), 60),
                            Text.duration(t.durationMs() * 1_000_000L));
                }
                table.print(out);
            }
            out.println(footer(traces.size(), limit, "trace")
                    + " (Tempo's search answers the traces that hold matching spans)");
        }

        @Override
        public void writeFields(JsonGenerator g) throws IOException {
            g.writeArrayFieldStart("traces");
            for (TraceSummary t : traces) {
                g.writeStartObject();
                g.writeStringField("traceID", t.traceId());
                g.writeStringField("rootServiceName", t.rootServiceName());
                if (!t.rootTraceName().isEmpty()) {
                    // Left out, as the server leaves it out, when the root span is not among the matches.
                    g.writeStringField("rootTraceName", t.rootTraceName());
                }
                g.writeStringField("startTimeUnixNano", Long.toString(t.startTimeUnixNano()));
                g.writeNumberField("durationMs", t.durationMs());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
    }

    /** The log records a search found, newest first. */
    record Logs(List<LogRecord> logs, int limit, List<String> problems, List<Explain> plans) implements Answer {

        public Logs {
            logs = List.copyOf(logs);
            problems = List.copyOf(problems);
            plans = List.copyOf(plans);
        }

        @Override
        public void print(PrintWriter out) {
            if (!logs.isEmpty()) {
                Text.Table table = new Text.Table("time", "severity", "service", "body", "trace id");
                for (LogRecord r : logs) {
                    table.row(Text.time(r.eventTimeUnixNano()), Text.severity(r.severityNumber(), r.severityText()),
                            Text.service(r.resource()), Text.cut(Text.value(r.body()), Text.BODY_WIDTH),
                            r.traceId().isEmpty() ? "-" : r.traceId().hex());
                }
                table.print(out);
            }
            out.println(footer(logs.size(), limit, "log record"));
        }

        @Override
        public void writeFields(JsonGenerator g) throws IOException {
            g.writeObjectFieldStart("logs");
            OtlpJson.writeResourceLogs(g, logs);
            g.writeEndObject();
        }
    }

    /** "3 spans, newest first", and a hint when the limit cut the answer short. */
    private static String footer(int n, int limit, String noun) {
        if (n == 0) {
            return "no " + noun + "s match";
        }
        return Text.count(n, noun) + ", newest first"
                + (n >= limit ? "; the limit of " + limit + " was reached, more may match (raise --limit)" : "");
    }
}
