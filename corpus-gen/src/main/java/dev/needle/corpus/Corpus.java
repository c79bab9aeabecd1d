package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A corpus made from a {@link CorpusSpec}: its spans and logs in chunks of at most
 * {@code blockRows} records (one block each), made independently and identically on any thread,
 * and the manifest of what they hold.
 *
 * <p>A run may be appended to an earlier corpus ({@link #appendedTo}): it keeps the earlier run's world
 * (seed, fleet, attribute values, families), so that a value absent from one run is absent from both, and
 * numbers its traces and chunks after the earlier ones, so that every id and random stream it draws from
 * is new: no trace id, span id or record of the earlier runs comes again.
 */
public final class Corpus {

    /** The resource attribute keys the manifest probes. */
    private static final List<String> RESOURCE_KEYS = List.of("service.name", "k8s.pod.name", "cloud.region", "host.name");
    /** At most this many present values of one key go into the manifest. */
    private static final int VALUES_PER_KEY = 16;

    private final CorpusSpec spec;
    /** The manifest of the corpus this run is appended to; null for a corpus's first run. */
    private final Manifest earlier;
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
        this(spec, null);
    }

    private Corpus(CorpusSpec spec, Manifest earlier) {
        this.spec = spec;
        this.earlier = earlier;
        this.plan = new TracePlan(spec, earlier == null ? 0 : Math.toIntExact(earlier.counts().traces()));
        this.fleet = new Fleet(spec.services(), spec.seed());
        this.words = new Vocabulary(spec, fleet);
        choosePresentProbes();
        this.spans = new SpanGenerator(spec, plan, fleet, words);
        this.logs = new LogGenerator(spec, plan, fleet, words, probeOfTrace, firstLogChunk());
    }

    /**
     * A run of {@code spec} appended to the corpus {@code earlier} describes: its traces and chunks numbered
     * after those of every earlier run; its {@link #manifest} describes them all.
     *
     * @throws IllegalArgumentException when {@code spec} has another world than {@code earlier}'s first run
     *                                  (seed, families, services, routes, users, shares, block rows, probes)
     */
    public static Corpus appendedTo(Manifest earlier, CorpusSpec spec) {
        CorpusSpec first = earlier.spec();
        CorpusSpec world = first.withCounts(spec.spans(), spec.logs()).withWindow(spec.startUnixNano(), spec.windowNanos());
        if (!world.equals(spec)) {
            throw new IllegalArgumentException("an appended run keeps the corpus's seed, families, services, routes, users,"
                    + " shares, block rows and probes: " + first + " and " + spec + " differ");
        }
        return new Corpus(spec, earlier);
    }

    /** The number of this run's span chunk 0 among every span block of the corpus. */
    public int firstSpanChunk() {
        return earlier == null ? 0 : Math.toIntExact(earlier.counts().spanBlocks());
    }

    /** The number of this run's log chunk 0 among every log block of the corpus. */
    public int firstLogChunk() {
        return earlier == null ? 0 : Math.toIntExact(earlier.counts().logBlocks());
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

    /**
     * The manifest of the whole corpus, from the merged tallies of every span and log chunk of this run, and
     * for an appended run the earlier manifest: counts summed; present trace ids of every run; absent ids of
     * every run (each absent from all: a random family's are fresh random bits, a counter's are odd where
     * every present one is even); the earlier present attribute values, counted over all runs; absent
     * attribute values of the shared world.
     *
     * @throws IllegalStateException when a run's present trace id is another's absent one
     */
    public Manifest manifest(Tally spanTotals, Tally logTotals) {
        Manifest own = ownManifest(spanTotals, logTotals);
        return earlier == null ? own : appended(own, spanTotals, logTotals);
    }

    private Manifest appended(Manifest own, Tally spanTotals, Tally logTotals) {
        Manifest.Counts a = earlier.counts();
        Manifest.Counts b = own.counts();
        Manifest.Counts counts = new Manifest.Counts(a.spans() + b.spans(), a.traces() + b.traces(), a.logs() + b.logs(),
                a.correlatedLogs() + b.correlatedLogs(), a.spanErrors() + b.spanErrors(), a.spanEvents() + b.spanEvents(),
                a.spanLinks() + b.spanLinks(), a.spanBlocks() + b.spanBlocks(), a.logBlocks() + b.logBlocks());
        Map<String, List<Manifest.PresentTrace>> present = new LinkedHashMap<>();
        Map<String, List<String>> absent = new LinkedHashMap<>();
        for (Manifest m : List.of(earlier, own)) {
            m.presentTraceIds().forEach((family, ids) -> present.computeIfAbsent(family, f -> new ArrayList<>()).addAll(ids));
            m.absentTraceIds().forEach((family, ids) -> {
                List<String> all = absent.computeIfAbsent(family, f -> new ArrayList<>());
                ids.stream().filter(id -> !all.contains(id)).forEach(all::add);
            });
        }
        Set<String> presentIds = new HashSet<>();
        present.values().forEach(ids -> ids.forEach(t -> presentIds.add(t.id())));
        absent.values().forEach(ids -> ids.stream().filter(presentIds::contains).findFirst().ifPresent(id -> {
            throw new IllegalStateException("trace id " + id + " is present in one run and absent in another");
        }));
        List<Manifest.AttributeProbe> presentAttributes = new ArrayList<>();
        for (String signal : List.of("spans", "logs")) {
            List<Manifest.AttributeProbe> before = earlier.presentAttributes().stream()
                    .filter(p -> p.signal().equals(signal)).toList();
            if (before.isEmpty()) {
                own.presentAttributes().stream().filter(p -> p.signal().equals(signal)).forEach(presentAttributes::add);
            }
            Tally totals = signal.equals("spans") ? spanTotals : logTotals;
            for (Manifest.AttributeProbe p : before) {
                presentAttributes.add(new Manifest.AttributeProbe(p.signal(), p.scope(), p.key(), p.type(), p.value(),
                        p.count() + count(totals, signal, p)));
            }
        }
        Set<Manifest.AttributeProbe> absentAttributes = new LinkedHashSet<>(earlier.absentAttributes());
        absentAttributes.addAll(own.absentAttributes());
        List<CorpusSpec> appended = new ArrayList<>(earlier.appended());
        appended.add(spec);
        return new Manifest(earlier.spec(), counts, present, absent, presentAttributes, List.copyOf(absentAttributes),
                appended);
    }

    /** How many records of this run {@code totals} counted with the attribute value {@code p} names. */
    private long count(Tally totals, String signal, Manifest.AttributeProbe p) {
        long count = 0;
        if (p.scope().equals("resource")) {
            for (int i = 0; i < fleet.resources.size(); i++) {
                if (value(fleet.resources.get(i), p.key()).equals(p.value())) {
                    count += totals.resources[i];
                }
            }
            return count;
        }
        for (ProbedAttribute a : signal.equals("spans") ? words.span() : words.log()) {
            if (a.scope.equals(p.scope()) && a.key.equals(p.key()) && a.type.equals(p.type())) {
                long[] counts = totals.attributes[a.slot];
                for (int i = 0; i < counts.length; i++) {
                    // Only drawn values are rendered: a key of a million values costs what the records drew.
                    if (counts[i] > 0 && a.value(i).equals(p.value())) {
                        count += counts[i];
                    }
                }
            }
        }
        return count;
    }

    private Manifest ownManifest(Tally spanTotals, Tally logTotals) {
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
        return new Manifest(spec, counts, present, absent, presentAttributes, absentAttributes, List.of());
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
