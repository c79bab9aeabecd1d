package dev.needle.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.bench.StoreFacts;
import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.Manifest;
import dev.needle.ingest.server.ServeCommand;
import dev.needle.query.cli.QueryCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarBuilder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The goal run on the smoke corpus, as CI runs it: every probe of the manifest is measured (no more,
 * no fewer), through the engine, DuckDB and a real {@code needle serve} child process, the cold
 * paths run in fresh processes, and the report opens with the goal table. No timings are checked.
 */
@Tag("slow")
class GoalRunSmokeTest {

    @TempDir
    Path dir;

    @Test
    void smokeCorpus_measuresEveryProbeOfTheManifestThroughEveryPath() throws Exception {
        Path data = dir.resolve("corpus");
        Manifest manifest = BenchCorpus.SMOKE.ensure(data, n -> { });
        PeerRunner peer = new PeerRunner(data, manifest, 1);
        peer.ensureExported(step -> { });
        String classPath = System.getProperty("java.class.path");
        GoalRun.Options options = new GoalRun.Options(1, 0, 2, true, 1, JavaLaunch.classPath(classPath, ServeCommand.class),
                JavaLaunch.classPath(classPath, QueryCommand.class));

        GoalRun.Results results = GoalRun.run(data, manifest, peer, options, (task, steps) -> new ProgressBarBuilder()
                .setTaskName(task).setInitialMax(steps).setConsumer(new DelegatingProgressBarConsumer(line -> { })).build());

        assertEquals(countsBy(manifest.absentAttributes(), manifest.presentAttributes()), countsByGroup(results.attributes()),
                "one result per attribute probe of the manifest, in its group");
        assertEquals(manifest.absentAttributes().size() + manifest.presentAttributes().size(), results.attributes().size());
        Map<String, Long> traceIds = manifest.presentTraceIds().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> (long) e.getValue().size()));
        assertEquals(traceIds, countsByGroup(results.traces()), "one result per present trace id, by family");
        for (ProbeResult r : results.attributes()) {
            assertNotNull(r.duckdb(), "DuckDB ran " + r.probe().scenario().name());
            assertEquals(r.needle().answer(), r.duckdb().answer());
            assertEquals(r.probe().expectedRecords(), r.needle().answer().records());
            if (!r.probe().scenario().expectFound()) {
                assertEquals(r.needle().totals().opened(), r.needle().totals().openedForNothing());
            }
        }
        for (ProbeResult r : results.traces()) {
            assertNotNull(r.duckdb(), "DuckDB ran " + r.probe().scenario().name());
            assertNotNull(r.http(), "the HTTP API was asked for " + r.probe().scenario().name());
            assertEquals(r.probe().expectedRecords(), r.needle().answer().records());
        }
        assertEquals(3, results.searches().size(), "the rare spans and logs searches and { }: " + results.searches());
        assertTrue(results.searches().stream().allMatch(s -> s.found() > 0 && s.timing().runs() == 1), results.searches().toString());
        assertEquals(1, results.cold().starts().size());
        assertEquals(1, results.cold().cliWallMillis().size());

        // The report's own sections need a measurement: one scenario under one setting.
        List<Measurement> warm = new ScenarioRunner(data, TenantId.DEFAULT, new ScenarioRunner.Options(1, 0, 2))
                .warm(Scenarios.of(manifest).subList(0, 1), List.of(Setting.ALL), step -> { });
        BenchReport report = new BenchReport("smoke", "goals", "a test run", StoreFacts.of(data, TenantId.DEFAULT, Signal.SPANS),
                StoreFacts.of(data, TenantId.DEFAULT, Signal.LOGS), List.of(Setting.ALL), warm, List.of(), List.of(), List.of());
        results.addTo(report);
        Path md = report.write(dir.resolve("results"));
        String text = Files.readString(md);
        assertTrue(text.indexOf("## Lookup speed against the goals") < text.indexOf("## With and without the sidecars"),
                "the goal table comes first: " + text);
        assertTrue(text.contains("| lookup | now | DuckDB | goal |"), text);
        for (String section : List.of("## Every attribute probe of the manifest", "## Trace by id, every present id per family",
                "## Searches through the HTTP API", "## Cold paths")) {
            assertTrue(text.contains(section), section + " in " + text);
        }
        assertTrue(text.contains("`needle query trace ID --data DIR`, whole process"), text);

        JsonNode json = new ObjectMapper().readTree(dir.resolve("results").resolve("smoke-goals.json").toFile());
        assertEquals(results.attributes().size(), json.path("attribute_probes").path("probes").size());
        assertEquals(results.traces().size(), json.path("trace_probes").path("traces").size());
        assertEquals(results.goals().size(), json.path("goals").size());
        assertEquals(3, json.path("http_searches").size());
        assertEquals(1, json.path("cold_paths").path("starts").size());
    }

    @SafeVarargs
    private static Map<String, Long> countsBy(List<Manifest.AttributeProbe>... probes) {
        return Arrays.stream(probes).flatMap(List::stream).collect(Collectors.groupingBy(
                p -> ManifestProbes.attributeGroup(p.signal(), p.count() > 0), Collectors.counting()));
    }

    private static Map<String, Long> countsByGroup(List<ProbeResult> results) {
        return results.stream().collect(Collectors.groupingBy(r -> r.probe().group(), Collectors.counting()));
    }
}
