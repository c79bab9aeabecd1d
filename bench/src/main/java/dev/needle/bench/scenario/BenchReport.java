package dev.needle.bench.scenario;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import dev.needle.bench.StoreFacts;
import dev.needle.bench.chart.Svg;
import dev.needle.bench.fpr.FprChart;
import dev.needle.bench.fpr.FprPoint;
import dev.needle.bench.fpr.FprReport;
import dev.needle.bench.peer.DuckDbPeer;
import dev.needle.blocks.json.StrictJson;
import dev.needle.query.engine.Explain;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One benchmark run's results as {@code <corpus>-<date>.md}, {@code .json} and SVG charts: the
 * seed table's rows, every scenario under every setting, cold runs, sidecar overhead, the
 * false-positive sweep, and the sections other parts add before (the goals) and after (every
 * probe, the HTTP API, cold paths, ingest) the built-in ones.
 */
public final class BenchReport {

    private static final ObjectWriter JSON = StrictJson.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writer();

    /** A section another part of the run adds: its Markdown and its JSON. */
    public record Section(String title, String jsonField, String markdown, JsonWriter json) {
    }

    /** Writes a section's JSON value at the generator's position. */
    @FunctionalInterface
    public interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }

    private final String corpus;
    private final String date;
    private final String header;
    private final StoreFacts spans;
    private final StoreFacts logs;
    private final List<Setting> settings;
    private final List<Measurement> warm;
    private final List<ColdRun> cold;
    private final List<FprPoint> fpr;
    private final List<PeerRunner.PeerResult> peer;
    private final List<Section> leads = new ArrayList<>();
    private final List<Section> sections = new ArrayList<>();

    /**
     * A report of one run.
     *
     * @param header lines saying how the run was made: command, machine, date
     */
    public BenchReport(String corpus, String date, String header, StoreFacts spans, StoreFacts logs,
                       List<Setting> settings, List<Measurement> warm, List<ColdRun> cold, List<FprPoint> fpr,
                       List<PeerRunner.PeerResult> peer) {
        this.corpus = corpus;
        this.date = date;
        this.header = header;
        this.spans = spans;
        this.logs = logs;
        this.settings = List.copyOf(settings);
        this.warm = List.copyOf(warm);
        this.cold = List.copyOf(cold);
        this.fpr = List.copyOf(fpr);
        this.peer = List.copyOf(peer);
    }

    /** Adds a section after the built-in ones. */
    public void add(Section section) {
        sections.add(section);
    }

    /** Adds a section before the built-in ones, right after the description of the run and the corpus. */
    public void lead(Section section) {
        leads.add(section);
    }

    /** Writes the .md, .json and .svg files into {@code dir}; returns the Markdown file. */
    public Path write(Path dir) throws IOException {
        Files.createDirectories(dir);
        String base = corpus + "-" + date;
        Svg.write(LatencyChart.chart(corpus, warm, settings), dir.resolve(base + "-latency.svg"));
        if (!fpr.isEmpty()) {
            FprChart.writeSvg(fpr, dir.resolve(base + "-fpr.svg"));
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve(base + ".json"))) {
            writeJson(out);
        }
        Path md = dir.resolve(base + ".md");
        Files.writeString(md, markdown(base), StandardCharsets.UTF_8);
        return md;
    }

    /** The headline rows: the seed store's table, measured here. */
    public String headline() {
        StringBuilder md = new StringBuilder();
        md.append("| lookup | mechanisms | blocks opened / listed | rows scanned | bytes read | cold (first query, fresh JVM) | warm p50 | warm p99 "
                + "| DuckDB row groups read / all | DuckDB cold | DuckDB warm p50 | warm: DuckDB / needle |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Measurement m : warm) {
            if (!m.scenario().headline() || (m.setting() != Setting.NONE && m.setting() != Setting.ALL)) {
                continue;
            }
            Explain.Totals t = m.totals();
            String coldText = coldOf(m).map(c -> ms(c.firstQueryMillis())).orElse("–");
            Optional<PeerRunner.PeerResult> p = m.setting() == Setting.ALL ? peerOf(m.scenario()) : Optional.empty();
            md.append(String.format(Locale.ROOT, "| %s | %s | %d / %d | %,d | %,d | %s | %s | %s | %s | %s | %s | %s |%n", m.scenario().name(),
                    m.setting() == Setting.ALL ? "all (with sidecars)" : "none (without)", t.opened(), t.listed(),
                    t.rowsScanned(), t.bytesRead(), coldText, ms(m.warmP50Millis()), ms(m.warmP99Millis()),
                    p.map(r -> r.plan().scanned() + " / " + r.plan().rowGroups()).orElse(""),
                    p.map(r -> ms((r.cold().open().p50Nanos() + r.cold().firstQuery().p50Nanos()) / 1e6)).orElse(""),
                    p.map(r -> ms(r.warm().p50Nanos() / 1e6)).orElse(""),
                    p.map(r -> ratio(r.warm().p50Nanos() / 1e6, m.warmP50Millis())).orElse("")));
        }
        return md.toString();
    }

    private String markdown(String base) {
        StringBuilder md = new StringBuilder();
        md.append("# needle bench: ").append(corpus).append(" corpus, ").append(date).append("\n\n");
        md.append(header).append("\n\n");
        md.append(String.format(Locale.ROOT, "Corpus: %,d spans in %d blocks (%,d bytes of data), %,d log records in %d blocks (%,d bytes).%n%n",
                spans.rows(), spans.blocks(), spans.dataBytes(), logs.rows(), logs.blocks(), logs.dataBytes()));
        for (Section s : leads) {
            md.append("## ").append(s.title()).append("\n\n").append(s.markdown()).append('\n');
        }
        md.append("## With and without the sidecars\n\n").append(headline()).append('\n');
        md.append("Cold: a fresh JVM per query; the JVM's own start-up is excluded and listed below. The OS page cache is not dropped.\n\n");
        md.append("## Sidecar overhead\n\n| signal | blocks | data bytes | TRACE_IDX bytes | share | ATTR_IDX bytes | share |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (StoreFacts f : List.of(spans, logs)) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %,d | %,d | %.3f%% | %,d | %.3f%% |%n", f.signal().dirName(), f.blocks(),
                    f.dataBytes(), f.traceIdxBytes(), 100 * f.traceIdxShare(), f.attrIdxBytes(), 100 * f.attrIdxShare()));
        }
        md.append("\n## Every scenario under every mechanism setting\n\n");
        md.append("Answers were compared across settings (and with the fresh-process runs): all equal. ")
                .append("Latency chart: [").append(base).append("-latency.svg](").append(base).append("-latency.svg).\n\n");
        md.append("| scenario | mechanisms | found | listed | pruned: time | TRACE_IDX | ATTR_IDX | zone maps | limit | opened | for nothing | rows scanned | bytes to decide | bytes read | runs | warm p50 | warm p99 |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Measurement m : warm) {
            Explain.Totals t = m.totals();
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %,d | %,d | %,d | %d | %s | %s |%n",
                    m.scenario().name(), m.setting().label(), m.answer().records(), t.listed(), t.prunedByTime(),
                    t.prunedByTraceIdx(), t.prunedByAttrIdx(), t.prunedByZoneMaps(), t.skippedByLimit(), t.opened(),
                    t.openedForNothing(), t.rowsScanned(), t.bytesToDecide(), t.bytesRead(), m.iterations(),
                    ms(m.warmP50Millis()), ms(m.warmP99Millis())));
        }
        md.append("\n## Cold runs\n\n| scenario | mechanisms | JVM start to main | first query |\n|---|---|---:|---:|\n");
        for (ColdRun c : cold) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", c.scenario().name(), c.setting().label(),
                    ms(c.jvmStartMillis()), ms(c.firstQueryMillis())));
        }
        if (!fpr.isEmpty()) {
            md.append("\n## False positives\n\nChart: [").append(base).append("-fpr.svg](").append(base).append("-fpr.svg).\n\n")
                    .append(FprReport.markdown(fpr));
        }
        if (!peer.isEmpty()) {
            md.append("\n## Peer: DuckDB over Parquet\n\n")
                    .append("The same corpus exported to Parquet (sorted like needle's blocks, 32,768-row groups, Bloom filters on the "
                            + "trace id and every flattened attribute column), queried through DuckDB ").append(PeerRunner.duckDbVersion())
                    .append(" with its Parquet footer cache on for warm runs; cold = a fresh DuckDB instance (open + first query). "
                            + "Every answer equals needle's. DuckDB writes a Bloom filter only for a dictionary-encoded column "
                            + "chunk, so the export raises its dictionary limits: `COPY ... (").append(PeerRunner.copyOptions())
                    .append(")`; `parquet_metadata()` shows a filter on every column chunk but the booleans'.\n\n");
            md.append("| scenario | row groups | pruned: time | min/max | Bloom | read | read for nothing | rows in read groups "
                    + "| DuckDB cold | DuckDB warm p50 | DuckDB warm p99 | needle warm p50 | DuckDB / needle |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (PeerRunner.PeerResult r : peer) {
                double needleP50 = warm.stream().filter(m -> m.setting() == Setting.ALL && m.scenario().equals(r.scenario()))
                        .mapToDouble(Measurement::warmP50Millis).findFirst().orElse(Double.NaN);
                var plan = r.plan();
                md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %,d | %s | %s | %s | %s | %s |%n",
                        r.scenario().name(), plan.rowGroups(), plan.prunedByTime(), plan.prunedByStatistics(), plan.prunedByBloom(),
                        plan.scanned(), plan.scannedForNothing(), plan.rowsInScanned(),
                        ms((r.cold().open().p50Nanos() + r.cold().firstQuery().p50Nanos()) / 1e6), ms(r.warm().p50Nanos() / 1e6),
                        ms(r.warm().p99Nanos() / 1e6), ms(needleP50), ratio(r.warm().p50Nanos() / 1e6, needleP50)));
            }
        }
        for (Section s : sections) {
            md.append("\n## ").append(s.title()).append("\n\n").append(s.markdown());
        }
        return md.toString();
    }

    private void writeJson(OutputStream out) throws IOException {
        List<StoreRow> store = List.of(StoreRow.of(spans), StoreRow.of(logs));
        List<ScenarioRow> scenarios = warm.stream().map(m -> ScenarioRow.of(m, coldOf(m))).toList();
        List<DuckDbRow> duckdb = peer.stream().map(DuckDbRow::of).toList();
        Map<String, SectionJson> extra = new LinkedHashMap<>();
        for (Section s : leads) {
            extra.put(s.jsonField(), new SectionJson(s.json()));
        }
        for (Section s : sections) {
            extra.put(s.jsonField(), new SectionJson(s.json()));
        }
        out.write(JSON.writeValueAsBytes(new Document(corpus, date, header, store, scenarios, fpr, duckdb, extra)));
        out.write('\n');
    }

    /** The .json file: the run, the store, every measurement, then the sections other parts add. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    private record Document(String corpus, String date, String header, List<StoreRow> store, List<ScenarioRow> scenarios,
                            List<FprPoint> falsePositives, List<DuckDbRow> duckdb,
                            @JsonAnyGetter Map<String, SectionJson> sections) {
    }

    /** One signal's blocks. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    private record StoreRow(String signal, int blocks, long rows, long dataBytes, long traceIdxBytes, long attrIdxBytes) {
        static StoreRow of(StoreFacts f) {
            return new StoreRow(f.signal().dirName(), f.blocks(), f.rows(), f.dataBytes(), f.traceIdxBytes(), f.attrIdxBytes());
        }
    }

    /** One scenario under one setting: what the engine did, and how long it took warm and (when run) cold. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    private record ScenarioRow(String scenario, String target, String mechanisms, int found, String answer, int listed,
                               int prunedByTime, int prunedByTraceIdx, int prunedByAttrIdx, int prunedByZoneMaps,
                               int skippedByLimit, int opened, int openedForNothing, long rowsScanned, long bytesToDecide,
                               long bytesRead, int warmRuns, double warmP50Ms, double warmP99Ms,
                               @JsonInclude(JsonInclude.Include.NON_NULL) Double coldJvmStartMs,
                               @JsonInclude(JsonInclude.Include.NON_NULL) Double coldFirstQueryMs) {
        static ScenarioRow of(Measurement m, Optional<ColdRun> cold) {
            Explain.Totals t = m.totals();
            return new ScenarioRow(m.scenario().name(), m.scenario().target(), m.setting().label(), m.answer().records(),
                    m.answer().digest(), t.listed(), t.prunedByTime(), t.prunedByTraceIdx(), t.prunedByAttrIdx(),
                    t.prunedByZoneMaps(), t.skippedByLimit(), t.opened(), t.openedForNothing(), t.rowsScanned(),
                    t.bytesToDecide(), t.bytesRead(), m.iterations(), m.warmP50Millis(), m.warmP99Millis(),
                    cold.map(ColdRun::jvmStartMillis).orElse(null), cold.map(ColdRun::firstQueryMillis).orElse(null));
        }
    }

    /** One scenario through DuckDB: its row groups and latencies. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    private record DuckDbRow(String scenario, int found, long rowGroups, long prunedByTime, long prunedByStatistics,
                             long prunedByBloom, long rowGroupsRead, long rowGroupsReadForNothing, long rowsInReadGroups,
                             double warmP50Ms, double warmP99Ms, double coldOpenMs, double coldFirstQueryMs) {
        static DuckDbRow of(PeerRunner.PeerResult r) {
            DuckDbPeer.Plan plan = r.plan();
            return new DuckDbRow(r.scenario().name(), r.answer().records(), plan.rowGroups(), plan.prunedByTime(),
                    plan.prunedByStatistics(), plan.prunedByBloom(), plan.scanned(), plan.scannedForNothing(),
                    plan.rowsInScanned(), r.warm().p50Nanos() / 1e6, r.warm().p99Nanos() / 1e6,
                    r.cold().open().p50Nanos() / 1e6, r.cold().firstQuery().p50Nanos() / 1e6);
        }
    }

    /** A section's JSON, written by the section's own writer where the document puts it. */
    private record SectionJson(JsonWriter writer) implements JsonSerializable {
        @Override
        public void serialize(JsonGenerator g, SerializerProvider provider) throws IOException {
            writer.write(g);
        }

        @Override
        public void serializeWithType(JsonGenerator g, SerializerProvider provider, TypeSerializer types) throws IOException {
            serialize(g, provider);
        }
    }

    private Optional<PeerRunner.PeerResult> peerOf(Scenario s) {
        return peer.stream().filter(r -> r.scenario().equals(s)).findFirst();
    }

    private static String ratio(double a, double b) {
        return String.format(Locale.ROOT, "%.1f×", a / b);
    }

    private Optional<ColdRun> coldOf(Measurement m) {
        return cold.stream().filter(c -> c.scenario().equals(m.scenario()) && c.setting() == m.setting()).findFirst();
    }

    /** Milliseconds with three significant digits or so. */
    static String ms(double millis) {
        if (millis >= 100) {
            return String.format(Locale.ROOT, "%,.0f ms", millis);
        } else if (millis >= 1) {
            return String.format(Locale.ROOT, "%.2f ms", millis);
        }
        return String.format(Locale.ROOT, "%.3f ms", millis);
    }
}
