package dev.needle.bench.scenario;

import com.fasterxml.jackson.core.JacksonException;
import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs scenarios against a data directory under every mechanism setting and checks the answers:
 * a setting that answers differently from all mechanisms on, or a lookup that contradicts the
 * manifest, stops the run with {@link WrongAnswerException} — a benchmark of broken pruning must
 * fail, not look fast.
 */
public final class ScenarioRunner {

    /**
     * How hard to run.
     *
     * @param warmIterations   the most timed warm runs per scenario and setting
     * @param warmBudgetMillis stop timed runs after this long (at least three are always made); up to a
     *                         third of it goes first to untimed warm-up runs (see {@link WarmLoop})
     * @param threads          the engine's block-scanning threads
     */
    public record Options(int warmIterations, long warmBudgetMillis, int threads) {
    }

    /** The sidecar cache: enough for every sidecar of the seed corpus. */
    static final long SIDECAR_CACHE_BYTES = 256L << 20;

    private final Path data;
    private final TenantId tenant;
    private final Options options;

    /** A runner over the blocks of {@code tenant} under {@code data}. */
    public ScenarioRunner(Path data, TenantId tenant, Options options) {
        this.data = data;
        this.tenant = tenant;
        this.options = options;
    }

    /** Every scenario under every setting, in one warm engine; {@code progress} hears each step. */
    public List<Measurement> warm(List<Scenario> scenarios, List<Setting> settings, Consumer<String> progress)
            throws IOException {
        List<Measurement> out = new ArrayList<>();
        try (QueryEngine engine = new QueryEngine(FsBlockStore.readOnly(data), HeadSource.EMPTY, SIDECAR_CACHE_BYTES,
                options.threads())) {
            for (Scenario s : scenarios) {
                AnswerDigest reference = null;
                for (Setting setting : settings) {
                    progress.accept(s.name() + " / " + setting.label());
                    Lookups.Outcome first = Lookups.run(engine, tenant, s, setting.mechanisms());
                    check(s, setting, first);
                    if (reference == null) {
                        reference = first.answer();
                    } else if (!reference.equals(first.answer())) {
                        throw new WrongAnswerException(s.name() + ": " + setting.label() + " answered " + first.answer()
                                + " but " + settings.get(0).label() + " answered " + reference);
                    }
                    WarmLoop.Timing timing = WarmLoop.time(options.warmIterations(), options.warmBudgetMillis(), () -> {
                        Lookups.Outcome again = Lookups.run(engine, tenant, s, setting.mechanisms());
                        if (!again.answer().equals(first.answer())) {
                            throw new WrongAnswerException(s.name() + ": " + setting.label() + " answered "
                                    + again.answer() + " on a later run, " + first.answer() + " on the first");
                        }
                    });
                    out.add(new Measurement(s, setting, first.answer(), first.plan().totals(), timing.runs(),
                            timing.p50Millis(), timing.p99Millis()));
                }
            }
        }
        return out;
    }

    /** The scenario's first query in a fresh JVM, run by {@link ColdQuery}; its answer must match {@code expected}. */
    public ColdRun cold(Scenario s, Setting setting, AnswerDigest expected) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-cp", System.getProperty("java.class.path"),
                ColdQuery.class.getName(), data.toString(), tenant.value(), setting.name(),
                Long.toString(s.range().fromUnixNano()), Long.toString(s.range().toUnixNano()), s.target()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String output;
        try {
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IOException("cold query of " + s.name() + " failed (exit " + process.exitValue() + "): " + output);
            }
        } finally {
            process.destroyForcibly();
        }
        ColdQuery.Result result;
        try {
            result = ColdQuery.Result.parse(output);
        } catch (JacksonException e) {
            throw new IOException("cold query of " + s.name() + " printed no result: " + output, e);
        }
        AnswerDigest answer = result.answer();
        if (!answer.equals(expected)) {
            throw new WrongAnswerException(s.name() + ": a fresh process answered " + answer + ", the warm one " + expected);
        }
        return new ColdRun(s, setting, result.jvmStartMs(), result.queryMs(), answer);
    }

    private static void check(Scenario s, Setting setting, Lookups.Outcome outcome) {
        if (outcome.partial()) {
            throw new WrongAnswerException(s.name() + " / " + setting.label() + ": partial answer, a block could not be read");
        }
        if (s.expectFound() != (outcome.answer().records() > 0)) {
            throw new WrongAnswerException(s.name() + " / " + setting.label() + ": the manifest says "
                    + (s.expectFound() ? "present" : "absent") + " but the lookup found " + outcome.answer().records());
        }
        var t = outcome.plan().totals();
        if (t.opened() > t.listed()) {
            throw new WrongAnswerException(s.name() + ": opened " + t.opened() + " of " + t.listed() + " blocks");
        }
        if (!s.expectFound() && t.opened() != t.openedForNothing()) {
            throw new WrongAnswerException(s.name() + ": an absent value's opened blocks must all be counted false positives");
        }
    }

    /** A benchmark answer that contradicts another setting, another process or the manifest. */
    public static final class WrongAnswerException extends RuntimeException {
        WrongAnswerException(String message) {
            super(message);
        }
    }
}
