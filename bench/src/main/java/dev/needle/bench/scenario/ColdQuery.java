package dev.needle.bench.scenario;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
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
        System.out.printf(Locale.ROOT, "{\"jvm_start_ms\": %.3f, \"query_ms\": %.3f, \"records\": %d, \"digest\": \"%s\"}%n",
                jvmStartMillis, queryMillis, outcome.answer().records(), outcome.answer().digest());
    }
}
