package dev.needle.bench.scenario;

import dev.needle.blocks.model.Bytes;
import dev.needle.corpus.Manifest;
import dev.needle.query.engine.TimeRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Every probe of a corpus's manifest as a lookup, not a chosen few: each attribute value present
 * and absent, on spans and on logs, and each present trace id of each id family; with the number
 * of records each must find.
 */
final class ManifestProbes {

    /**
     * One probe as a lookup.
     *
     * @param group           the set it is summed up with in the report: see {@link #attributeGroup} and {@link #traceGroup}
     * @param scenario        the lookup, over all time
     * @param expectedRecords the records it must find: the manifest's count, up to a search's limit
     */
    record Probe(String group, Scenario scenario, long expectedRecords) {
    }

    private ManifestProbes() {
    }

    /** The group of the attribute probes of {@code signal} ({@code spans} or {@code logs}) that are present or absent. */
    static String attributeGroup(String signal, boolean present) {
        return signal + ", " + (present ? "present" : "absent") + " values";
    }

    /** The group of the trace ids of one family: the family's label, such as {@code xray}. */
    static String traceGroup(String family) {
        return family;
    }

    /** Every attribute probe of the manifest, absent ones first, as a search with the scenarios' limit. */
    static List<Probe> attributes(Manifest manifest) {
        List<Probe> out = new ArrayList<>();
        for (List<Manifest.AttributeProbe> probes : List.of(manifest.absentAttributes(), manifest.presentAttributes())) {
            for (Manifest.AttributeProbe p : probes) {
                boolean present = p.count() > 0;
                Scenario.Kind kind = p.signal().equals("logs") ? Scenario.Kind.LOGS : Scenario.Kind.SPANS;
                String query = "{ " + Scenarios.condition(p) + " }";
                Scenario s = new Scenario(p.signal() + ": " + Scenarios.condition(p), kind, null, query, TimeRange.ALL,
                        present, false, p);
                out.add(new Probe(attributeGroup(p.signal(), present), s, Math.min(p.count(), Lookups.LIMIT)));
            }
        }
        return out;
    }

    /** Every present trace id of every family, each with its span count. */
    static List<Probe> traces(Manifest manifest) {
        List<Probe> out = new ArrayList<>();
        for (Map.Entry<String, List<Manifest.PresentTrace>> family : manifest.presentTraceIds().entrySet()) {
            for (Manifest.PresentTrace t : family.getValue()) {
                Scenario s = new Scenario("trace (" + family.getKey() + ") " + t.id(), Scenario.Kind.TRACE,
                        Bytes.fromHex(t.id()), null, TimeRange.ALL, true, false, null);
                out.add(new Probe(traceGroup(family.getKey()), s, t.spans()));
            }
        }
        return out;
    }

    /** The trace id the headline scenarios look up: the middle present id of the first family, as {@link Scenarios} picks it. */
    static Probe headlineTrace(Manifest manifest) {
        List<Probe> traces = traces(manifest);
        String family = traces.get(0).group();
        List<Probe> first = traces.stream().filter(p -> p.group().equals(family)).toList();
        return first.get(first.size() / 2);
    }

    /**
     * Each probe through the engine under all mechanisms, timed by {@code runner}; every answer
     * must hold exactly the records the manifest says (besides {@link ScenarioRunner}'s own checks).
     */
    static List<ProbeResult> measure(ScenarioRunner runner, List<Probe> probes, Consumer<String> progress)
            throws IOException {
        List<Measurement> measured = runner.warm(probes.stream().map(Probe::scenario).toList(), List.of(Setting.ALL),
                progress);
        List<ProbeResult> out = new ArrayList<>();
        for (int i = 0; i < probes.size(); i++) {
            Probe p = probes.get(i);
            Measurement m = measured.get(i);
            if (m.answer().records() != p.expectedRecords()) {
                throw new ScenarioRunner.WrongAnswerException(p.scenario().name() + ": found " + m.answer().records()
                        + " records, the manifest says " + p.expectedRecords());
            }
            out.add(new ProbeResult(p, m, null, null));
        }
        return out;
    }

    /** {@code results} with DuckDB's measurement of each probe it ran. */
    static List<ProbeResult> withDuckDb(List<ProbeResult> results, List<PeerRunner.PeerProbe> peer) {
        Map<Scenario, PeerRunner.PeerProbe> byScenario = new HashMap<>();
        peer.forEach(p -> byScenario.put(p.scenario(), p));
        return results.stream().map(r -> r.withDuckDb(byScenario.get(r.probe().scenario()))).toList();
    }
}
