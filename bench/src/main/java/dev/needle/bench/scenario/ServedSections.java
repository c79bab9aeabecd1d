package dev.needle.bench.scenario;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Locale;

/** The report's sections on a running server: searches through its HTTP API, and the cold paths. */
final class ServedSections {

    private ServedSections() {
    }

    /** The searches through the HTTP API of a server started by {@code launch}. */
    static BenchReport.Section searches(String launch, List<ServedLookups.Search> searches, int maxRuns) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "A `needle serve` child process (`%s`, the JVM's defaults) on the corpus; "
                + "each request over one kept-alive HTTP/1.1 connection, timed from sending it to the reply's last byte, "
                + "after untimed warm-up requests, up to %d timed. What the server did is its own EXPLAIN "
                + "(`explain=true`, asked once, untimed). Trace by id through the API is in the section above.%n%n", launch, maxRuns));
        md.append("| lookup | request | found | blocks opened / listed | rows scanned | bytes read | runs | p50 | p99 |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ServedLookups.Search s : searches) {
            md.append(String.format(Locale.ROOT, "| %s | `%s` | %d | %d / %d | %,d | %,d | %d | %s | %s |%n", s.name(),
                    s.request(), s.found(), s.opened(), s.listed(), s.rowsScanned(), s.bytesRead(), s.timing().runs(),
                    BenchReport.ms(s.timing().p50Millis()), BenchReport.ms(s.timing().p99Millis())));
        }
        return new BenchReport.Section("Searches through the HTTP API", "http_searches", md.toString(),
                g -> g.writeObject(searches.stream().map(SearchRow::of).toList()));
    }

    /** The cold paths: fresh servers until their first answer, and fresh query processes. */
    static BenchReport.Section cold(ColdPaths.Result cold) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Fresh processes as a user starts them, %d of each, every one looking up trace "
                + "`%s` (the OS page cache is not dropped, so the corpus's files are as warm as the runs above left them). "
                + "Server: `%s --data DIR --otlp-port 0 --query-port 0`, timed from starting the process to the first 200 "
                + "from `/ready` (polled every few milliseconds), then its first `/api/v2/traces/{id}`. Query: `%s trace ID "
                + "--data DIR`, the whole process from start to exit, output discarded, after one untimed process (through the "
                + "`needle` script, that one makes the script's class-data sharing archive; a later one maps it).%n%n", cold.cliWallMillis().size(), cold.traceId(), cold.serverLaunch(),
                cold.cliLaunch()));
        md.append("| path | runs | median | min | max |\n|---|---:|---:|---:|---:|\n");
        row(md, "`needle serve`: start to `/ready`", cold.startToReady());
        row(md, "`needle serve`: first trace by id after ready", cold.firstQuery());
        row(md, "`needle serve`: start to the first answer", Spread.of(cold.starts().stream()
                .map(s -> s.startToReadyMillis() + s.firstQueryMillis()).toList()));
        row(md, "`needle query trace ID --data DIR`, whole process", cold.cli());
        return new BenchReport.Section("Cold paths", "cold_paths", md.toString(), g -> g.writeObject(cold));
    }

    private static void row(StringBuilder md, String path, Spread s) {
        md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s |%n", path, s.count(), BenchReport.ms(s.median()), BenchReport.ms(s.min()),
                BenchReport.ms(s.max())));
    }

    /** One search in the .json. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    private record SearchRow(String lookup, String request, int found, long listed, long opened, long rowsScanned,
                             long bytesRead, int runs, double p50Ms, double p99Ms) {
        static SearchRow of(ServedLookups.Search s) {
            return new SearchRow(s.name(), s.request(), s.found(), s.listed(), s.opened(), s.rowsScanned(), s.bytesRead(),
                    s.timing().runs(), s.timing().p50Millis(), s.timing().p99Millis());
        }
    }
}
