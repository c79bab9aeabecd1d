package dev.needle.query.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.cli.Cli.Run;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import dev.needle.query.traceql.SearchQuery;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code needle query spans} and {@code logs} over a data directory of known blocks. */
final class SearchCommandTest {

    private static final String CHECKOUT = "{ resource.service.name = \"checkout\" }";

    @TempDir
    static Path dir;
    static Fixture fixture;
    static String data;

    @BeforeAll
    static void writeFixture() throws IOException {
        fixture = Fixture.write(dir);
        data = dir.toString();
    }

    @Test
    void spans_limit_printsTheNewestMatches() throws IOException {
        List<SpanRecord> expected = newest(fixture.spans, s -> Text.service(s.resource()).equals("checkout"), 5);

        Run json = Cli.run("spans", CHECKOUT, "--limit", "5", "--json", "--data", data);
        assertEquals(0, json.exit(), json::toString);
        assertEquals(new HashSet<>(expected), new HashSet<>(Cli.spans(json.out(), "spans")));

        Run human = Cli.run("spans", CHECKOUT, "--limit", "5", "--data", data);
        assertEquals(0, human.exit(), human::toString);
        List<String> lines = human.out().lines().toList();
        assertEquals(7, lines.size(), human::toString);
        assertTrue(lines.get(0).matches("time +trace id +service +name +duration +status"), lines.get(0));
        for (int i = 0; i < expected.size(); i++) {
            SpanRecord s = expected.get(i);
            assertTrue(lines.get(i + 1).startsWith(Text.time(s.startTimeUnixNano()) + "  " + s.traceId().hex()
                    + "  checkout  " + s.name()), lines.get(i + 1));
        }
        assertEquals("5 spans, newest first; the limit of 5 was reached, more may match (raise --limit)", lines.get(6));
    }

    @Test
    void spans_since_readsOnlyTheRecentRange() throws IOException {
        // The fixture leaves five minutes between 2h ago and the nearest records on either side.
        long from = fixture.now - 2 * Fixture.HOUR;
        Run r = Cli.run("spans", "{ }", "--since", "2h", "--limit", "1000", "--json", "--explain", "--data", data);
        assertEquals(0, r.exit(), r::toString);
        List<SpanRecord> expected = fixture.spans.stream().filter(s -> s.startTimeUnixNano() >= from).toList();
        assertEquals(48, expected.size());
        assertEquals(new HashSet<>(expected), new HashSet<>(Cli.spans(r.out(), "spans")));
        assertEquals(4, Cli.plans(r.out()).get(0).totals().prunedByTime());
    }

    @Test
    void spans_fromTo_takesRfc3339AndUnixSeconds() throws IOException {
        long from = fixture.blockStart(2);
        long toSeconds = Math.floorDiv(fixture.blockStart(4), 1_000_000_000L);
        String fromText = Instant.ofEpochSecond(0, from).toString();
        Run r = Cli.run("spans", "{ }", "--from", fromText, "--to", Long.toString(toSeconds), "--limit", "1000",
                "--json", "--data", data);
        assertEquals(0, r.exit(), r::toString);
        List<SpanRecord> expected = fixture.spans.stream()
                .filter(s -> s.startTimeUnixNano() >= from && s.startTimeUnixNano() <= toSeconds * 1_000_000_000L)
                .toList();
        assertEquals(2 * 24 + 5, expected.size());
        assertEquals(new HashSet<>(expected), new HashSet<>(Cli.spans(r.out(), "spans")));
    }

    @Test
    void spans_noAttrIdx_opensEveryBlockForAnAbsentValue() {
        String absent = "{ resource.service.name = \"nope\" }";
        Run with = Cli.run("spans", absent, "--explain", "--data", data);
        assertEquals(0, with.exit(), with::toString);
        assertTrue(with.out().startsWith("no spans match\n\nspans: 6 blocks listed, 0 pruned by time, 0 by TRACE_IDX,"
                + " 6 by ATTR_IDX"), with::toString);
        assertEquals(0, Cli.opened(with.out()));
        Run without = Cli.run("spans", absent, "--explain", "--no-attr-idx", "--data", data);
        assertEquals(Fixture.BLOCKS, Cli.opened(without.out()));
        assertTrue(without.out().startsWith("no spans match\n"), without::toString);
    }

    @Test
    void logs_query_printsTimeSeverityServiceBodyAndTraceId() throws IOException {
        String query = "{ severity >= error }";
        Run r = Cli.run("logs", query, "--limit", "100", "--data", data);
        assertEquals(0, r.exit(), r::toString);
        List<LogRecord> expected = fixture.logs.stream().filter(l -> l.severityNumber() >= 17)
                .sorted(Comparator.comparingLong(LogRecord::eventTimeUnixNano).reversed()).toList();
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).matches("time +severity +service +body +trace id"), lines.get(0));
        assertEquals(expected.size() + 2, lines.size(), r::toString);
        for (int i = 0; i < expected.size(); i++) {
            LogRecord l = expected.get(i);
            assertTrue(lines.get(i + 1).startsWith(Text.time(l.eventTimeUnixNano()) + "  ERROR "), lines.get(i + 1));
            assertTrue(lines.get(i + 1).endsWith(l.traceId().hex()), lines.get(i + 1));
        }
        assertTrue(r.out().contains("  card declined by issuer  "), r::toString);

        Run json = Cli.run("logs", query, "--limit", "100", "--json", "--data", data);
        assertEquals(new HashSet<>(expected), new HashSet<>(Cli.logs(json.out(), "logs")));
    }

    @Test
    void spans_parseError_exits2WithTheQueryAndACaret() {
        String bad = "{ resource.service.name == \"checkout\" }";
        QueryParseException expected = assertThrows(QueryParseException.class, () -> QueryParser.parse(bad, Signal.SPANS));
        Run r = Cli.run("spans", bad, "--data", data);
        assertEquals(QueryCommand.USAGE, r.exit(), r::toString);
        List<String> lines = r.err().lines().toList();
        assertEquals("needle query spans: bad query: " + expected.getMessage(), lines.get(0));
        assertEquals("  " + bad, lines.get(1));
        assertEquals("  " + " ".repeat(expected.position()) + "^", lines.get(2));
        assertEquals("", r.out());
    }

    @Test
    void search_badOptions_exit2() {
        Run limit = Cli.run("logs", "{ }", "--limit", "0", "--data", data);
        assertEquals(QueryCommand.USAGE, limit.exit(), limit::toString);
        assertTrue(limit.err().contains("--limit must be at least 1, got 0"), limit::toString);

        Run both = Cli.run("spans", "{ }", "--since", "1h", "--from", "1700000000", "--data", data);
        assertEquals(QueryCommand.USAGE, both.exit(), both::toString);
        assertTrue(both.err().contains("give --since or --from/--to, not both"), both::toString);

        Run since = Cli.run("spans", "{ }", "--since", "soon", "--data", data);
        assertEquals(QueryCommand.USAGE, since.exit(), since::toString);
        assertTrue(since.err().contains("expected a duration such as 15m"), since::toString);
    }

    @Test
    void help_examplesAreQueriesOfTheCommandsOwnSignal() {
        for (Signal signal : Signal.values()) {
            String command = signal.dirName();
            Run help = Cli.run(command, "--help");
            assertEquals(QueryCommand.OK, help.exit(), help::toString);
            List<String> examples = help.out().lines().filter(l -> l.startsWith("  needle query " + command + " '"))
                    .map(l -> l.substring(l.indexOf('\'') + 1, l.lastIndexOf('\''))).toList();
            assertTrue(examples.size() >= 2, help::toString);
            for (String example : examples) {
                assertDoesNotThrow(() -> {
                    if (signal == Signal.SPANS) {
                        SearchQuery.parse(example);
                    } else {
                        QueryParser.parse(example, signal);
                    }
                }, example);
            }
            if (signal == Signal.LOGS) {
                assertFalse(help.out().contains("span."), help::toString);
            }
        }
    }

    private static List<SpanRecord> newest(List<SpanRecord> spans, Predicate<SpanRecord> match, int limit) {
        return spans.stream().filter(match)
                .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano).reversed()).limit(limit).toList();
    }
}
