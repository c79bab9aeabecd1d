package dev.needle.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.bench.StoreFacts;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.Manifest;
import dev.needle.query.engine.Explain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke corpus end to end, as CI runs it: every scenario under every mechanism setting gives
 * the same answer, agrees with the manifest, opens no more blocks than are listed, and opens blocks
 * for an absent value only as counted false positives; a fresh JVM answers the same. No timings.
 */
@Tag("slow")
class BenchSmokeTest {

    @TempDir
    Path dir;

    @Test
    void smokeCorpus_everySettingAgreesAndPrunes() throws Exception {
        Path data = dir.resolve("corpus");
        Manifest manifest = BenchCorpus.SMOKE.ensure(data, n -> { });
        assertEquals(manifest, BenchCorpus.SMOKE.ensure(data, n -> { }), "a second run reuses the corpus");
        List<Scenario> scenarios = Scenarios.of(manifest);
        assertTrue(scenarios.size() >= 20, "scenarios: " + scenarios.size());
        assertTrue(scenarios.stream().anyMatch(s -> !s.range().isAll()), "some scenarios are bounded in time");
        assertTrue(scenarios.stream().anyMatch(s -> s.query() != null && s.query().contains("&&")));
        assertTrue(scenarios.stream().anyMatch(s -> s.query() != null && s.query().contains("||")));

        ScenarioRunner runner = new ScenarioRunner(data, TenantId.DEFAULT, new ScenarioRunner.Options(1, 0, 2));
        List<Setting> settings = Arrays.asList(Setting.values());
        List<Measurement> warm = runner.warm(scenarios, settings, step -> { });
        assertEquals(scenarios.size() * settings.size(), warm.size());

        Map<Scenario, List<Measurement>> byScenario = warm.stream().collect(Collectors.groupingBy(Measurement::scenario));
        for (List<Measurement> cells : byScenario.values()) {
            assertEquals(1, cells.stream().map(Measurement::answer).distinct().count(), "one answer for " + cells.get(0).scenario());
            for (Measurement m : cells) {
                Explain.Totals t = m.totals();
                assertTrue(t.opened() <= t.listed(), m.toString());
                if (!m.scenario().expectFound()) {
                    assertEquals(t.opened(), t.openedForNothing(), "an absent value's opened blocks are all false positives: " + m);
                }
            }
            Measurement all = cells.stream().filter(m -> m.setting() == Setting.ALL).findFirst().orElseThrow();
            Measurement none = cells.stream().filter(m -> m.setting() == Setting.NONE).findFirst().orElseThrow();
            assertEquals(none.totals().listed(), none.totals().opened() + none.totals().skippedByLimit(),
                    "without mechanisms every block is opened, but for those a limited search did not need");
            if (all.scenario().kind() == Scenario.Kind.TRACE) {
                assertTrue(all.totals().opened() - all.totals().openedForNothing() <= 1,
                        "a trace lives in one block of this corpus: " + all);
            }
        }
        long absentWithAll = warm.stream().filter(m -> m.setting() == Setting.ALL && !m.scenario().expectFound()).count();
        long falsePositives = warm.stream().filter(m -> m.setting() == Setting.ALL && !m.scenario().expectFound())
                .mapToLong(m -> m.totals().openedForNothing()).sum();
        assertTrue(falsePositives <= absentWithAll, "false positives " + falsePositives + " over " + absentWithAll + " absent lookups");

        Measurement headline = warm.stream().filter(m -> m.scenario().headline() && m.setting() == Setting.ALL)
                .findFirst().orElseThrow();
        ColdRun cold = runner.cold(headline.scenario(), Setting.ALL, headline.answer());
        assertEquals(headline.answer(), cold.answer());

        PeerRunner peerRunner = new PeerRunner(data, manifest, 1);
        peerRunner.ensureExported(step -> { });
        List<PeerRunner.PeerResult> peer = peerRunner.run(warm, step -> { });
        assertTrue(peer.size() >= 12, "the peer ran the trace and single-equality scenarios: " + peer.size());
        for (PeerRunner.PeerResult r : peer) {
            assertTrue(r.plan().scanned() <= r.plan().rowGroups(), r.toString());
        }

        BenchReport report = new BenchReport("smoke", "test", "a test run", StoreFacts.of(data, TenantId.DEFAULT, Signal.SPANS),
                StoreFacts.of(data, TenantId.DEFAULT, Signal.LOGS), settings, warm, List.of(cold), List.of(), peer);
        Path md = report.write(dir.resolve("results"));
        String text = Files.readString(md);
        assertTrue(text.contains("| trace present (random) | all (with sidecars) |"), text);
        assertTrue(text.contains("## Peer: DuckDB over Parquet"), text);
        assertTrue(Files.size(dir.resolve("results").resolve("smoke-test-latency.svg")) > 1000);
        assertTrue(Files.size(dir.resolve("results").resolve("smoke-test.json")) > 1000);
    }
}
