package dev.needle.bench.batchidx;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.corpus.Manifest;
import dev.needle.query.engine.BlockDecision;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Times every attribute probe of a corpus's manifest through {@link QueryEngine}, warm, as a server
 * runs them (sidecars preloaded into the default cache, a limit of 20): per signal, the mean and
 * median of each probe's median time over the absent probes, the rare present ones (held by at most
 * 20 records, so every block that may hold them is searched) and the common ones, with what the plans
 * read (blocks opened, batches read, blocks BATCH_ATTR_IDX pruned). A probe whose answer
 * is not the manifest's (no record for an absent value, min(count, 20) for a present one) stops the
 * run: a fast wrong answer is no measurement.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.needle.bench.batchidx.ManifestProbeTimes
 * DATA [RUNS]} (RUNS timed runs per probe after as many untimed ones, default 15).
 */
public final class ManifestProbeTimes {

    /** The newest records a search returns, as Tempo's search (and the corpus benchmark) asks. */
    static final int LIMIT = 20;

    private ManifestProbeTimes() {
    }

    /** Prints one line per signal and kind of probe. */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: ManifestProbeTimes DATA [RUNS]");
            System.exit(2);
        }
        run(Path.of(args[0]), args.length == 2 ? Integer.parseInt(args[1]) : 15, System.out);
    }

    /** Times every probe of {@code data}'s manifest, {@code runs} times after as many untimed runs, and prints the lines. */
    static void run(Path data, int runs, PrintStream out) throws IOException {
        Manifest manifest = Manifest.readFrom(data);
        try (QueryEngine engine = new QueryEngine(FsBlockStore.readOnly(data), HeadSource.EMPTY,
                QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES, Runtime.getRuntime().availableProcessors())) {
            engine.preloadSidecars();
            out.printf("%-6s %-7s %6s %9s %9s %9s %9s %14s %13s %21s%n", "signal", "probes", "count", "mean ms",
                    "median ms", "p90 ms", "max ms", "blocks opened", "batches read", "pruned by BATCH_ATTR");
            for (Signal signal : Signal.values()) {
                List<Manifest.AttributeProbe> present = manifest.presentAttributes().stream()
                        .filter(p -> p.signal().equals(signal.dirName())).toList();
                run(engine, signal, "absent", manifest.absentAttributes().stream()
                        .filter(p -> p.signal().equals(signal.dirName())).toList(), runs, out);
                run(engine, signal, "rare", present.stream().filter(p -> p.count() <= LIMIT).toList(), runs, out);
                run(engine, signal, "common", present.stream().filter(p -> p.count() > LIMIT).toList(), runs, out);
            }
        }
    }

    private static void run(QueryEngine engine, Signal signal, String kind, List<Manifest.AttributeProbe> probes,
                            int runs, PrintStream out) throws IOException {
        if (probes.isEmpty()) {
            return;
        }
        double[] medians = new double[probes.size()];
        long opened = 0;
        long batchesRead = 0;
        long prunedByBatches = 0;
        for (int i = 0; i < probes.size(); i++) {
            Manifest.AttributeProbe probe = probes.get(i);
            Expr expr = condition(signal, probe);
            long expected = Math.min(probe.count(), LIMIT);
            Explain plan = null;
            double[] times = new double[runs];
            for (int r = -runs; r < runs; r++) {
                long start = System.nanoTime();
                SearchResult<?> result = signal == Signal.SPANS
                        ? engine.searchSpans(TenantId.DEFAULT, expr, TimeRange.ALL, LIMIT, Mechanisms.ALL)
                        : engine.searchLogs(TenantId.DEFAULT, expr, TimeRange.ALL, LIMIT, Mechanisms.ALL);
                long nanos = System.nanoTime() - start;
                if (result.records().size() != expected || result.partial()) {
                    throw new IllegalStateException(expr + " answered " + result.records().size() + " records (partial: "
                            + result.partial() + "), the manifest says " + expected);
                }
                if (r >= 0) {
                    times[r] = nanos / 1e6;
                }
                plan = result.plan();
            }
            Arrays.sort(times);
            medians[i] = times[runs / 2];
            opened += plan.totals().opened();
            for (BlockDecision d : plan.blocks()) {
                batchesRead += d.batchesRead();
                prunedByBatches += d.decidedBy() == BlockDecision.Step.BATCH_ATTR_IDX ? 1 : 0;
            }
        }
        Arrays.sort(medians);
        out.printf("%-6s %-7s %6d %9.2f %9.2f %9.2f %9.2f %14d %13d %21d%n", signal.dirName(), kind, probes.size(), Arrays.stream(medians).average().orElse(0),
                medians[medians.length / 2], medians[(int) (medians.length * 0.9)], medians[medians.length - 1], opened,
                batchesRead, prunedByBatches);
    }

    /** {@code { <scope>.<key> = <value> }}, the literal typed as the manifest types the value. */
    private static Expr condition(Signal signal, Manifest.AttributeProbe probe) {
        Attribute.Scope scope = probe.scope().equals("resource") ? Attribute.Scope.RESOURCE : Attribute.Scope.RECORD;
        AnyValue v = probe.value();
        Literal literal;
        if (v instanceof AnyValue.Str s) {
            literal = new Literal.StringLit(s.value());
        } else if (v instanceof AnyValue.Int n) {
            literal = new Literal.IntLit(n.value());
        } else if (v instanceof AnyValue.Dbl d) {
            literal = new Literal.DoubleLit(d.value());
        } else {
            literal = new Literal.BoolLit(((AnyValue.Bool) v).value());
        }
        return new Expr.Condition(new Attribute(signal, scope, probe.key()), Op.EQ, literal);
    }
}
