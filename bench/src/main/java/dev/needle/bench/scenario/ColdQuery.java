package dev.needle.bench.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.needle.blocks.json.StrictJson;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The fresh process of a cold run: opens the store, answers one scenario, prints one JSON line
 * with the JVM's start-up time (apart) and the query's, then exits.
 *
 * <p>Arguments: {@code DATA TENANT SETTING FROM_NANOS TO_NANOS TARGET}, where TARGET is
 * {@link Scenario#target()}.
 */
public final class ColdQuery {

    private static final ObjectMapper JSON = StrictJson.requiringEveryField().build();

    /**
     * The line the process prints, and {@link ScenarioRunner} reads.
     *
     * @param jvmStartMs JVM start to main, in milliseconds
     * @param queryMs    opening the store and answering, in milliseconds
     * @param records    how many records the answer holds
     * @param digest     the answer's digest
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Result(double jvmStartMs, double queryMs, int records, String digest) {

        /** The result {@code line} holds. */
        static Result parse(String line) throws IOException {
            return JSON.readValue(line, Result.class);
        }

        /** The answer the process found. */
        AnswerDigest answer() {
            return new AnswerDigest(records, digest);
        }
    }

    private ColdQuery() {
    }

    /** Runs one cold query. */
    public static void main(String[] args) throws Exception {
        double jvmStartMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        long start = System.nanoTime();
        String target = args[5];
        int colon = target.indexOf(':');
        Scenario.Kind kind = Scenario.Kind.valueOf(target.substring(0, colon).toUpperCase(Locale.ROOT));
        String rest = target.substring(colon + 1);
        TimeRange range = new TimeRange(Long.parseLong(args[3]), Long.parseLong(args[4]));
        Scenario s = new Scenario("cold", kind, kind == Scenario.Kind.TRACE ? Bytes.fromHex(rest) : null,
                kind == Scenario.Kind.TRACE ? null : rest, range, false, false, null);
        Lookups.Outcome outcome;
        try (QueryEngine engine = new QueryEngine(FsBlockStore.readOnly(Path.of(args[0])), HeadSource.EMPTY,
                ScenarioRunner.SIDECAR_CACHE_BYTES, 2)) {
            outcome = Lookups.run(engine, TenantId.of(args[1]), s, Setting.valueOf(args[2]).mechanisms());
        }
        double queryMillis = (System.nanoTime() - start) / 1e6;
        System.out.println(JSON.writeValueAsString(new Result(microseconds(jvmStartMillis), microseconds(queryMillis),
                outcome.answer().records(), outcome.answer().digest())));
    }

    /** Milliseconds to the microsecond: finer is noise. */
    private static double microseconds(double millis) {
        return Math.round(millis * 1000) / 1000.0;
    }
}
