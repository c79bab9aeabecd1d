package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Makes the log records of one chunk: bodies from templates with variable parts, a severity mix
 * led by INFO, and a share of records that carry the trace and span id of a span made near them in
 * time (from the same service as that trace's root), as a logging bridge inside a traced request would.
 */
final class LogGenerator {

    private static final int TRACE = Severity.TRACE.number();
    private static final int DEBUG = Severity.DEBUG.number();
    private static final int INFO = Severity.INFO.number();
    private static final int WARN = Severity.WARN.number();
    private static final int ERROR = Severity.ERROR.number();
    private static final int FATAL = Severity.FATAL.number();
    /** The template of a sign-in, the one record that names an event. */
    private static final int SIGN_IN = 1;
    private static final String[] JOBS = {"reindex-products", "expire-sessions", "send-digest", "reconcile-payments"};
    private static final String[] DECLINES = {"insufficient_funds", "card_expired", "do_not_honor", "fraud_suspected"};
    /** Template weights, in tenths of a percent; see {@link #body}. */
    private static final int[] TEMPLATE_WEIGHTS = {450, 80, 40, 50, 70, 30, 10, 70, 50, 40, 58, 2};

    private final CorpusSpec spec;
    private final TracePlan plan;
    private final Fleet fleet;
    private final Vocabulary words;
    private final Map<Integer, Integer> probeOfTrace;
    /** The number of chunk 0 in the whole corpus, which its random stream derives from (see {@link TracePlan#number}). */
    private final int firstChunk;
    private final double nanosPerLog;

    LogGenerator(CorpusSpec spec, TracePlan plan, Fleet fleet, Vocabulary words, Map<Integer, Integer> probeOfTrace,
                 int firstChunk) {
        this.spec = spec;
        this.firstChunk = firstChunk;
        this.plan = plan;
        this.fleet = fleet;
        this.words = words;
        this.probeOfTrace = probeOfTrace;
        this.nanosPerLog = spec.logs() == 0 ? 0 : (double) spec.windowNanos() / spec.logs();
    }

    int chunks() {
        return (int) ((spec.logs() + spec.blockRows() - 1) / spec.blockRows());
    }

    /** The records of chunk {@code chunk}, in time order but for jitter; their facts are added to {@code tally}. */
    List<LogRecord> chunk(int chunk, Tally tally) {
        long first = (long) chunk * spec.blockRows();
        long end = Math.min(spec.logs(), first + spec.blockRows());
        SplittableRandom r = new SplittableRandom(Seeds.of(spec.seed(), Seeds.LOG_CHUNK, firstChunk + chunk));
        List<LogRecord> out = new ArrayList<>((int) (end - first));
        for (long i = first; i < end; i++) {
            out.add(record(i, r, tally));
        }
        tally.records += end - first;
        return out;
    }

    private LogRecord record(long i, SplittableRandom r, Tally tally) {
        long time = spec.startUnixNano() + (long) (nanosPerLog * i) + (long) (nanosPerLog * r.nextDouble());
        Bytes traceId = Bytes.EMPTY;
        Bytes spanId = Bytes.EMPTY;
        int service;
        if (plan.traces() > 0 && r.nextDouble() < spec.correlatedLogs()) {
            int t = (int) Math.max(0, Math.min(plan.traces() - 1, (long) ((double) i * plan.traces() / spec.logs()) + r.nextInt(5) - 2));
            TracePlan.Identity identity = plan.identity(t);
            traceId = identity.traceId();
            spanId = plan.spanId(t, r.nextInt(plan.size(t)));
            service = identity.rootService();
            time = plan.startNanos(t) + 1_000_000L + r.nextInt(50_000_000);
            tally.correlated++;
            Integer probe = probeOfTrace.get(t);
            if (probe != null) {
                tally.logsPerProbe[probe]++;
            }
        } else {
            service = SpanGenerator.skewed(r, spec.services());
        }
        Fleet.Service s = fleet.services.get(service);
        int resource = s.firstResource() + r.nextInt(s.pods());
        tally.resources[resource]++;
        List<KeyValue> attributes = new ArrayList<>(6);
        StringBuilder body = new StringBuilder(64);
        int template = SpanGenerator.draw(r, TEMPLATE_WEIGHTS);
        int severity = body(template, r, attributes, tally, body);
        String eventName = template == SIGN_IN ? "user.login" : "";
        return new LogRecord(fleet.resources.get(resource), s.logScope(), time, time + 1_000_000L + r.nextInt(900_000_000),
                severity, Severity.otlpName(severity), AnyValue.of(body.toString()), attributes, 0,
                traceId.isEmpty() ? 0 : 1, traceId, spanId, eventName);
    }

    /** Writes template {@code template}'s body with its variable parts filled in, adds its attributes, returns its severity. */
    private int body(int template, SplittableRandom r, List<KeyValue> attributes, Tally tally, StringBuilder body) {
        switch (template) {
            case 0 -> {
                int method = SpanGenerator.draw(r, Vocabulary.METHOD_WEIGHTS);
                int route = SpanGenerator.skewed(r, words.routes.length);
                boolean failed = r.nextDouble() < spec.errorShare();
                int status = failed ? Vocabulary.OK_STATUS.length + r.nextInt(Vocabulary.ERROR_STATUS.length)
                        : SpanGenerator.draw(r, Vocabulary.OK_STATUS_WEIGHTS);
                int duration = Math.min(words.logDuration.size - 1, (int) (4 * 20 * Math.exp(r.nextGaussian())));
                tally.add(attributes, words.logMethod, method);
                tally.add(attributes, words.logRoute, route);
                tally.add(attributes, words.logStatus, status);
                tally.add(attributes, words.logDuration, duration);
                if (r.nextInt(10) < 6) {
                    tally.add(attributes, words.logUser, SpanGenerator.skewed(r, spec.users()));
                }
                long code = ((AnyValue.Int) words.logStatus.value(status)).value();
                body.append(Vocabulary.METHODS[method]).append(' ').append(words.routes[route]).append(' ')
                        .append(code).append(' ').append(duration * 0.25).append(" ms");
                return code >= 500 ? ERROR : code >= 400 ? WARN : INFO;
            }
            case SIGN_IN -> {
                int user = SpanGenerator.skewed(r, spec.users());
                tally.add(attributes, words.logUser, user);
                body.append("user ").append(((AnyValue.Str) words.logUser.value(user)).value()).append(" signed in from 10.")
                        .append(r.nextInt(256)).append('.').append(r.nextInt(256)).append('.').append(r.nextInt(256));
                return INFO;
            }
            case 2 -> {
                int user = SpanGenerator.skewed(r, spec.users());
                tally.add(attributes, words.logUser, user);
                body.append("payment ").append(Long.toHexString(r.nextLong())).append(" declined: ")
                        .append(DECLINES[r.nextInt(DECLINES.length)]);
                return INFO;
            }
            case 3 -> {
                int duration = Math.min(words.logDuration.size - 1, (int) (4 * 2000 * Math.exp(r.nextGaussian())));
                tally.add(attributes, words.logDuration, duration);
                body.append("job ").append(JOBS[r.nextInt(JOBS.length)]).append(" finished in ").append(duration * 0.25)
                        .append(" ms, ").append(r.nextInt(10_000)).append(" items");
                return INFO;
            }
            case 4 -> {
                int collection = r.nextInt(Vocabulary.COLLECTIONS.length);
                tally.add(attributes, words.logCacheHit, 0);
                tally.add(attributes, words.logCollection, collection);
                body.append("cache miss for key ").append(Vocabulary.COLLECTIONS[collection]).append(':').append(r.nextInt(1_000_000));
                return DEBUG;
            }
            case 5 -> {
                body.append("request headers parsed: ").append(4 + r.nextInt(30)).append(" headers");
                return DEBUG;
            }
            case 6 -> {
                body.append("entering ").append(Vocabulary.COLLECTIONS[r.nextInt(Vocabulary.COLLECTIONS.length)]).append("Repository.find");
                return TRACE;
            }
            case 7 -> {
                int attempt = r.nextInt(3);
                tally.add(attributes, words.logAttempt, attempt);
                body.append("retrying call to ").append(fleet.services.get(r.nextInt(spec.services())).name())
                        .append(" (attempt ").append(attempt + 1).append(" of 3)");
                return WARN;
            }
            case 8 -> {
                int collection = r.nextInt(Vocabulary.COLLECTIONS.length);
                int duration = Math.min(words.logDuration.size - 1, (int) (4 * 800 * Math.exp(0.5 * r.nextGaussian())));
                tally.add(attributes, words.logCollection, collection);
                tally.add(attributes, words.logDuration, duration);
                body.append("slow query on ").append(Vocabulary.COLLECTIONS[collection]).append(": ").append(duration * 0.25).append(" ms");
                return WARN;
            }
            case 9 -> {
                body.append("connection pool exhausted: ").append(1 + r.nextInt(64)).append(" waiting, ")
                        .append(8 + r.nextInt(56)).append(" active");
                tally.add(attributes, words.logException, 2);
                return ERROR;
            }
            case 10 -> {
                int exception = r.nextInt(Vocabulary.EXCEPTIONS.length);
                tally.add(attributes, words.logException, exception);
                body.append("unhandled ").append(Vocabulary.EXCEPTIONS[exception]).append(" in ")
                        .append(words.routes[SpanGenerator.skewed(r, words.routes.length)]);
                return r.nextInt(10) == 0 ? WARN : ERROR;
            }
            default -> {
                int exception = r.nextInt(Vocabulary.EXCEPTIONS.length);
                tally.add(attributes, words.logException, exception);
                body.append("unrecoverable error, shutting down: ").append(Vocabulary.EXCEPTIONS[exception]);
                return FATAL;
            }
        }
    }
}
