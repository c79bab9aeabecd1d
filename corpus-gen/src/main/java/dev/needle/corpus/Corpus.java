package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A corpus made from a {@link CorpusSpec}: its spans and logs in chunks of at most
 * {@code blockRows} records (one block each), made independently and identically on any thread,
 * and the manifest of what they hold.
 */
public final class Corpus {

    /** The resource attribute keys the manifest probes. */
    private static final List<String> RESOURCE_KEYS = List.of("service.name", "k8s.pod.name", "cloud.region", "host.name");
    /** At most this many present values of one key go into the manifest. */
    private static final int VALUES_PER_KEY = 16;

    private final CorpusSpec spec;
    private final TracePlan plan;
    private final Fleet fleet;
    private final Vocabulary words;
    private final SpanGenerator spans;
    private final LogGenerator logs;
    /** Per family, the traces whose ids the manifest lists as present. */
    private final Map<TraceIdFamily, List<Integer>> probeTraces = new LinkedHashMap<>();
    private final Map<Integer, Integer> probeOfTrace = new HashMap<>();
    private final List<Integer> probeList = new ArrayList<>();

    /** Plans the corpus: trace sizes, fleet and probes. Records are made by {@link #spans(int)} and {@link #logs(int)}. */
    public Corpus(CorpusSpec spec) {
        this.spec = spec;
        this.plan = new TracePlan(spec);
        this.fleet = new Fleet(spec.services(), spec.seed());
        this.words = new Vocabulary(spec, fleet);
        choosePresentProbes();
        this.spans = new SpanGenerator(spec, plan, fleet, words);
        this.logs = new LogGenerator(spec, plan, fleet, words, probeOfTrace);
    }

    /** Probe traces spread over the whole corpus, up to {@code probes} per family. */
    private void choosePresentProbes() {
        for (TraceIdFamily family : spec.families()) {
            probeTraces.put(family, new ArrayList<>());
        }
        int traces = plan.traces();
        int step = Math.max(1, traces / (spec.probes() * spec.families().size() * 2));
        for (int t = step / 2; t < traces; t += step) {
            List<Integer> list = probeTraces.get(plan.identity(t).family());
            if (list.size() < spec.probes()) {
                list.add(t);
                probeOfTrace.put(t, probeList.size());
                probeList.add(t);
            }
        }
    }

    /** The spec this corpus is made from. */
    public CorpusSpec spec() {
        return spec;
    }

    /** How many span chunks (blocks) the corpus has. */
    public int spanChunks() {
        return plan.chunks();
    }

    /** How many log chunks (blocks) the corpus has. */
    public int logChunks() {
        return logs.chunks();
    }

    /** An empty tally of spans, to merge chunks' tallies into. */
    public Tally spanTally() {
        return new Tally(words, true, fleet.resources.size(), probeList.size());
    }

    /** An empty tally of logs, to merge chunks' tallies into. */
    public Tally logTally() {
        return new Tally(words, false, fleet.resources.size(), probeList.size());
    }

    /** Span chunk {@code chunk}: whole traces, in trace order, with what they hold. */
    public Chunk<SpanRecord> spans(int chunk) {
        Tally tally = spanTally();
        return new Chunk<>(chunk, spans.chunk(chunk, tally), tally);
    }

    /** Log chunk {@code chunk}, with what it holds. */
    public Chunk<LogRecord> logs(int chunk) {
        Tally tally = logTally();
        return new Chunk<>(chunk, logs.chunk(chunk, tally), tally);
    }

    /** One chunk's records and their tally. */
    public record Chunk<R>(int index, List<R> records, Tally tally) {
    }

    /** The manifest of the whole corpus, from the merged tallies of every span and log chunk. */
    public Manifest manifest(Tally spanTotals, Tally logTotals) {
        Map<String, List<Manifest.PresentTrace>> present = new LinkedHashMap<>();
        Map<String, List<String>> absent = new LinkedHashMap<>();
        for (TraceIdFamily family : spec.families()) {
            List<Manifest.PresentTrace> traces = new ArrayList<>();
            for (int t : probeTraces.get(family)) {
                traces.add(new Manifest.PresentTrace(plan.identity(t).traceId().hex(), plan.size(t),
                        logTotals.logsPerProbe[probeOfTrace.get(t)]));
            }
            present.put(family.label(), traces);
            List<String> ids = new ArrayList<>();
            for (int j = 0; j < spec.probes(); j++) {
                SplittableRandom random = new SplittableRandom(Seeds.of(spec.seed(), Seeds.PROBES, (long) family.ordinal() << 32 | j));
                int near = (int) ((long) j * plan.traces() / spec.probes());
                ids.add(plan.absentId(family, near, random).hex());
            }
            absent.put(family.label(), ids);
        }
        List<Manifest.AttributeProbe> presentAttributes = new ArrayList<>();
        List<Manifest.AttributeProbe> absentAttributes = new ArrayList<>();
        if (spanTotals.records > 0) {
            attributes("spans", spanTotals, words.span(), presentAttributes, absentAttributes);
        }
        if (logTotals.records > 0) {
            attributes("logs", logTotals, words.log(), presentAttributes, absentAttributes);
        }
        Manifest.Counts counts = new Manifest.Counts(spanTotals.records, plan.traces(), logTotals.records,
                logTotals.correlated, spanTotals.errors, spanTotals.events, spanTotals.links, spanChunks(), logChunks());
        return new Manifest(spec, counts, present, absent, presentAttributes, absentAttributes);
    }

    private void attributes(String signal, Tally totals, List<ProbedAttribute> list,
                            List<Manifest.AttributeProbe> present, List<Manifest.AttributeProbe> absent) {
        for (String key : RESOURCE_KEYS) {
            Map<AnyValue, Long> counts = new LinkedHashMap<>();
            for (int i = 0; i < fleet.resources.size(); i++) {
                if (totals.resources[i] > 0) {
                    counts.merge(value(fleet.resources.get(i), key), totals.resources[i], Long::sum);
                }
            }
            List<AnyValue> values = new ArrayList<>(counts.keySet());
            long[] byIndex = counts.values().stream().mapToLong(Long::longValue).toArray();
            String type = "string";
            for (int i : select(byIndex)) {
                present.add(new Manifest.AttributeProbe(signal, "resource", key, type, values.get(i), byIndex[i]));
            }
            for (AnyValue v : fleet.absentResourceValues.get(key)) {
                absent.add(new Manifest.AttributeProbe(signal, "resource", key, type, v, 0));
            }
        }
        for (ProbedAttribute a : list) {
            long[] counts = totals.attributes[a.slot];
            List<Integer> chosen = select(counts);
            if (chosen.isEmpty()) {
                continue;
            }
            for (int i : chosen) {
                present.add(new Manifest.AttributeProbe(signal, a.scope, a.key, a.type, a.value(i), counts[i]));
            }
            for (AnyValue v : a.absent()) {
                absent.add(new Manifest.AttributeProbe(signal, a.scope, a.key, a.type, v, 0));
            }
        }
    }

    /** Indices of present values to list: all of a small key's; of a large key's, the most common and a spread of the rest. */
    private static List<Integer> select(long[] counts) {
        List<Integer> present = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                present.add(i);
            }
        }
        if (present.size() <= VALUES_PER_KEY) {
            return present;
        }
        List<Integer> chosen = new ArrayList<>(present.stream()
                .sorted(Comparator.comparingLong((Integer i) -> -counts[i]).thenComparing(i -> i)).limit(4).toList());
        int step = present.size() / (VALUES_PER_KEY - chosen.size());
        for (int j = step / 2; j < present.size() && chosen.size() < VALUES_PER_KEY; j += step) {
            if (!chosen.contains(present.get(j))) {
                chosen.add(present.get(j));
            }
        }
        chosen.sort(null);
        return chosen;
    }

    private static AnyValue value(Resource resource, String key) {
        for (KeyValue kv : resource.attributes()) {
            if (kv.key().equals(key)) {
                return kv.value();
            }
        }
        throw new IllegalStateException("fleet resource without " + key);
    }
}
