package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes the spans of one chunk of traces. Each trace is a tree: a SERVER root, then HTTP calls to
 * other services (a CLIENT span and the callee's SERVER span under it), database calls, internal
 * work and messaging, each child inside its parent's time. Every trace draws from its own random
 * stream, so a chunk comes out the same on any thread.
 */
final class SpanGenerator {

    private static final int INTERNAL = 1;
    private static final int SERVER = 2;
    private static final int CLIENT = 3;
    private static final int PRODUCER = 4;
    private static final int CONSUMER = 5;
    /** A database call: an OTLP CLIENT span, told apart from HTTP calls only while the trace is made. */
    private static final int DB = 6;
    private static final int STATUS_OK = 1;
    private static final int STATUS_ERROR = 2;
    private static final int FLAG_SAMPLED = 1;
    private static final String[] INTERNAL_NAMES = {"validate-cart", "compute-price", "render-template",
        "serialize-response", "apply-discounts", "check-fraud-rules", "resolve-feature-flags"};
    /** Draw weights of {@link Vocabulary#DB_OPERATIONS}: mostly reads. */
    private static final int[] DB_OPERATION_WEIGHTS = {70, 15, 12, 3};
    private static final KeyValue HTTP_SCHEME = KeyValue.of("url.scheme", "http");
    private static final KeyValue KAFKA = KeyValue.of("messaging.system", "kafka");
    private static final KeyValue PUBLISH = KeyValue.of("messaging.operation.type", "publish");
    private static final KeyValue PROCESS = KeyValue.of("messaging.operation.type", "process");

    private final CorpusSpec spec;
    private final TracePlan plan;
    private final Fleet fleet;
    private final Vocabulary words;
    private final String[][] serverNames;
    private final String[][] dbNames;

    SpanGenerator(CorpusSpec spec, TracePlan plan, Fleet fleet, Vocabulary words) {
        this.spec = spec;
        this.plan = plan;
        this.fleet = fleet;
        this.words = words;
        serverNames = new String[Vocabulary.METHODS.length][words.routes.length];
        for (int m = 0; m < Vocabulary.METHODS.length; m++) {
            for (int r = 0; r < words.routes.length; r++) {
                serverNames[m][r] = Vocabulary.METHODS[m] + " " + words.routes[r];
            }
        }
        dbNames = new String[Vocabulary.DB_OPERATIONS.length][Vocabulary.COLLECTIONS.length];
        for (int o = 0; o < Vocabulary.DB_OPERATIONS.length; o++) {
            for (int c = 0; c < Vocabulary.COLLECTIONS.length; c++) {
                dbNames[o][c] = Vocabulary.DB_OPERATIONS[o] + " " + Vocabulary.COLLECTIONS[c];
            }
        }
    }

    /** The spans of chunk {@code chunk}, in trace order; their facts are added to {@code tally}. */
    List<SpanRecord> chunk(int chunk, Tally tally) {
        List<SpanRecord> out = new ArrayList<>((int) plan.spansIn(chunk));
        Scratch scratch = new Scratch();
        for (int t = plan.firstTrace(chunk); t < plan.endTrace(chunk); t++) {
            trace(t, out, tally, scratch);
        }
        return out;
    }

    /** Per-span facts of the trace being made, which its later spans look back at. */
    private static final class Scratch {
        final int[] service = new int[TracePlan.MAX_SPANS];
        final int[] kind = new int[TracePlan.MAX_SPANS];
        /** The service an HTTP CLIENT span calls, and with which method. */
        final int[] callee = new int[TracePlan.MAX_SPANS];
        final int[] method = new int[TracePlan.MAX_SPANS];
        final long[] start = new long[TracePlan.MAX_SPANS];
        final long[] end = new long[TracePlan.MAX_SPANS];
        final int[] containers = new int[TracePlan.MAX_SPANS];
    }

    private void trace(int t, List<SpanRecord> out, Tally tally, Scratch s) {
        SplittableRandom r = new SplittableRandom(Seeds.of(spec.seed(), Seeds.TRACE, plan.number(t)));
        TracePlan.Identity identity = plan.identity(t);
        int n = plan.size(t);
        int containers = 0;
        for (int k = 0; k < n; k++) {
            int parent;
            int kind;
            int service;
            if (k == 0) {
                parent = -1;
                kind = SERVER;
                service = identity.rootService();
                s.start[0] = plan.startNanos(t);
                s.end[0] = s.start[0] + clamp((long) (40e6 * Math.exp(1.2 * r.nextGaussian())), 100_000, 30_000_000_000L);
            } else if (s.kind[k - 1] == CLIENT && r.nextInt(10) < 9) {
                // The callee's side of the HTTP call just made: same request, slightly inside it.
                parent = k - 1;
                kind = SERVER;
                service = s.callee[k - 1];
                long span = s.end[parent] - s.start[parent];
                s.start[k] = s.start[parent] + span / 20;
                s.end[k] = s.end[parent] - span / 20;
            } else {
                parent = s.containers[r.nextInt(containers)];
                int draw = r.nextInt(100);
                kind = draw < 35 ? CLIENT : draw < 50 ? DB : draw < 82 ? INTERNAL : draw < 91 ? PRODUCER : CONSUMER;
                service = s.service[parent];
                if (kind == CLIENT) {
                    s.callee[k] = spec.services() == 1 ? 0 : (service + 1 + r.nextInt(spec.services() - 1)) % spec.services();
                    s.method[k] = draw(r, Vocabulary.METHOD_WEIGHTS);
                }
                long span = s.end[parent] - s.start[parent];
                s.start[k] = s.start[parent] + (long) (r.nextDouble() * 0.7 * span);
                s.end[k] = Math.min(s.end[parent], s.start[k] + Math.max(1, (long) (span * (0.05 + 0.5 * r.nextDouble()))));
            }
            s.kind[k] = kind;
            s.service[k] = service;
            if (kind == SERVER || kind == INTERNAL || kind == CONSUMER) {
                s.containers[containers++] = k;
            }
            out.add(span(t, k, parent, identity.traceId(), r, tally, s));
        }
        tally.records += n;
    }

    private SpanRecord span(int t, int k, int parent, Bytes traceId, SplittableRandom r, Tally tally, Scratch s) {
        Fleet.Service service = fleet.services.get(s.service[k]);
        int resource = service.firstResource() + r.nextInt(service.pods());
        tally.resources[resource]++;
        boolean error = r.nextDouble() < spec.errorShare();
        List<KeyValue> attributes = new ArrayList<>(8);
        String name;
        int kind = s.kind[k] == DB ? CLIENT : s.kind[k];
        String statusMessage = "";
        int status = 0;
        List<SpanEvent> events = List.of();
        List<SpanLink> links = List.of();
        switch (s.kind[k]) {
            case SERVER -> {
                int method = parent >= 0 ? s.method[parent] : draw(r, Vocabulary.METHOD_WEIGHTS);
                int route = skewed(r, words.routes.length);
                name = serverNames[method][route];
                tally.add(attributes, words.spanMethod, method);
                tally.add(attributes, words.spanRoute, route);
                int code = httpStatus(r, error);
                tally.add(attributes, words.spanStatus, code);
                tally.add(attributes, words.spanPort, Vocabulary.portIndex(service.port()));
                attributes.add(HTTP_SCHEME);
                tally.add(attributes, words.spanSampling, service.samplingIndex());
                if (r.nextInt(10) < 7) {
                    tally.add(attributes, words.spanUser, skewed(r, spec.users()));
                }
                status = error ? STATUS_ERROR : r.nextInt(10) == 0 ? STATUS_OK : 0;
            }
            case CLIENT -> {
                int method = s.method[k];
                int callee = s.callee[k];
                name = Vocabulary.METHODS[method];
                tally.add(attributes, words.spanMethod, method);
                tally.add(attributes, words.spanServerAddress, callee);
                tally.add(attributes, words.spanPort, Vocabulary.portIndex(fleet.services.get(callee).port()));
                tally.add(attributes, words.spanStatus, httpStatus(r, error));
                status = error ? STATUS_ERROR : 0;
            }
            case DB -> {
                int db = r.nextInt(Vocabulary.DB_SYSTEMS.length);
                int op = draw(r, DB_OPERATION_WEIGHTS);
                int collection = r.nextInt(Vocabulary.COLLECTIONS.length);
                name = dbNames[op][collection];
                tally.add(attributes, words.spanDbSystem, db);
                tally.add(attributes, words.spanDbOperation, op);
                tally.add(attributes, words.spanCollection, collection);
                tally.add(attributes, words.spanPort, Vocabulary.portIndex(Vocabulary.DB_PORTS[db]));
                if (Vocabulary.DB_SYSTEMS[db].equals("redis")) {
                    tally.add(attributes, words.spanCacheHit, r.nextInt(10) < 8 ? 0 : 1);
                }
                status = error ? STATUS_ERROR : 0;
            }
            case INTERNAL -> {
                name = INTERNAL_NAMES[r.nextInt(INTERNAL_NAMES.length)];
                if (r.nextInt(10) < 3) {
                    tally.add(attributes, words.spanCacheHit, r.nextInt(2));
                }
                status = error ? STATUS_ERROR : 0;
            }
            default -> {
                int topic = r.nextInt(Vocabulary.TOPICS.length);
                name = (kind == PRODUCER ? "publish " : "process ") + Vocabulary.TOPICS[topic];
                attributes.add(KAFKA);
                tally.add(attributes, words.spanTopic, topic);
                attributes.add(kind == PRODUCER ? PUBLISH : PROCESS);
                if (kind == CONSUMER && t > 0) {
                    // The message came from an earlier trace: link to its root, as messaging spans do.
                    links = List.of(new SpanLink(plan.identity(t - 1).traceId(), plan.spanId(t - 1, 0), "", List.of(), 0, 0));
                    tally.links++;
                }
                status = error ? STATUS_ERROR : 0;
            }
        }
        if (error) {
            tally.errors++;
            String exception = Vocabulary.EXCEPTIONS[r.nextInt(Vocabulary.EXCEPTIONS.length)];
            statusMessage = exception + ": " + name + " failed";
            events = List.of(new SpanEvent(s.end[k], "exception", List.of(
                    KeyValue.of("exception.type", exception),
                    KeyValue.of("exception.message", statusMessage)), 0));
            tally.events++;
        } else if (r.nextInt(50) == 0) {
            events = List.of(new SpanEvent(s.start[k] + (s.end[k] - s.start[k]) / 2, "retry",
                    List.of(KeyValue.of("retry.attempt", 1 + r.nextInt(3))), 0));
            tally.events++;
        }
        return new SpanRecord(fleet.resources.get(resource), service.spanScope(), traceId, plan.spanId(t, k), "",
                parent < 0 ? Bytes.EMPTY : plan.spanId(t, parent), FLAG_SAMPLED, name, kind, s.start[k], s.end[k],
                attributes, 0, events, 0, links, 0, status, statusMessage);
    }

    /** Value index of an HTTP status: one of the server errors when the span failed, else a weighted ordinary one. */
    private static int httpStatus(SplittableRandom r, boolean error) {
        return error ? Vocabulary.OK_STATUS.length + r.nextInt(Vocabulary.ERROR_STATUS.length)
                : draw(r, Vocabulary.OK_STATUS_WEIGHTS);
    }

    /** An index in 0..n-1 with the low ones much likelier: a few hot routes, a few very active users. */
    static int skewed(SplittableRandom r, int n) {
        double u = r.nextDouble();
        return (int) (n * u * u * u);
    }

    /** An index drawn with the given weights. */
    static int draw(SplittableRandom r, int[] weights) {
        int total = 0;
        for (int w : weights) {
            total += w;
        }
        int x = r.nextInt(total);
        for (int i = 0; i < weights.length; i++) {
            x -= weights[i];
            if (x < 0) {
                return i;
            }
        }
        throw new AssertionError("weights sum to " + total);
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }
}
