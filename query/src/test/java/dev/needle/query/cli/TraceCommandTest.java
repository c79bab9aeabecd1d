package dev.needle.query.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.cli.Cli.Run;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code needle query trace} over a data directory of known blocks. */
final class TraceCommandTest {

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
    void trace_knownId_printsEverySpanAsTreeByParent() {
        Run r = Cli.run("trace", fixture.treeId.hex(), "--data", data);
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().startsWith("trace " + fixture.treeId.hex() + ": 5 spans, 4 services, started "), r::toString);
        List<SpanRecord> tree = fixture.treeSpans;
        // Root, then reserve with SELECT cart under it, then charge, then the late retry, by start time under the root.
        Map<SpanRecord, Integer> depth = Map.of(tree.get(0), 0, tree.get(1), 1, tree.get(2), 2, tree.get(3), 1,
                tree.get(4), 1);
        List<String> lines = r.out().lines().toList();
        int previous = -1;
        for (SpanRecord s : List.of(tree.get(0), tree.get(1), tree.get(2), tree.get(3), tree.get(4))) {
            String hex = s.spanId().hex();
            int at = indexOf(lines, hex);
            assertTrue(at > previous, "span " + s.name() + " out of order in\n" + r.out());
            previous = at;
            String line = lines.get(at);
            String tail = line.substring(line.indexOf(hex) + hex.length() + 2);
            String expected = "  ".repeat(depth.get(s)) + Text.service(s.resource()) + ": " + s.name();
            assertTrue(tail.startsWith(expected), "expected '" + expected + "' in line: " + line);
        }
        String charge = lines.get(indexOf(lines, tree.get(3).spanId().hex()));
        assertTrue(charge.contains(" error ") && charge.endsWith("payment: charge (card declined)"), charge);
        assertTrue(lines.get(indexOf(lines, tree.get(0).spanId().hex())).contains("412.500ms"), r::toString);
        assertEquals("", r.err());
    }

    @Test
    void trace_withLogs_printsLogRecordsUnderTheTree() {
        Run r = Cli.run("trace", fixture.treeId.hex(), "--logs", "--data", data);
        assertEquals(0, r.exit(), r::toString);
        String logs = r.out().substring(r.out().indexOf("2 log records"));
        assertTrue(logs.contains("INFO") && logs.contains("charging card"), r::toString);
        // The body's line break prints as a space: one record, one line.
        assertTrue(logs.contains("ERROR") && logs.contains("card declined by issuer"), r::toString);
    }

    @Test
    void trace_json_parsesBackToTheSameRecords() throws IOException {
        Run r = Cli.run("trace", fixture.treeId.hex(), "--logs", "--json", "--data", data);
        assertEquals(0, r.exit(), r::toString);
        assertEquals(byStart(fixture.treeSpans), byStart(Cli.spans(r.out(), "trace")));
        assertEquals(fixture.treeLogs.stream().sorted(Comparator.comparingLong(LogRecord::eventTimeUnixNano)).toList(),
                Cli.logs(r.out(), "logs"));
        assertEquals("\"COMPLETE\"", Cli.text(Cli.field(r.out(), "status")));
        assertFalse(r.out().contains("\"explain\""), r::toString);
    }

    @Test
    void trace_explain_printsPlanWithTotalsAfterTheTree() throws IOException {
        Run r = Cli.run("trace", fixture.treeId.hex(), "--explain", "--data", data);
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().indexOf("spans: 6 blocks listed, 0 pruned by time, 4 by TRACE_IDX")
                > r.out().indexOf("GET /checkout"), r::toString);
        assertTrue(r.out().contains(" rows scanned, 5 matched, "), r::toString);
        assertEquals(2, Cli.opened(r.out()));

        Run json = Cli.run("trace", fixture.treeId.hex(), "--explain", "--logs", "--json", "--data", data);
        assertEquals(List.of("spans", "logs"), Cli.plans(json.out()).stream().map(p -> p.signal()).toList());
    }

    @Test
    void trace_noTraceIdx_opensEveryBlockButPrintsTheSameSpans() {
        Run with = Cli.run("trace", fixture.treeId.hex(), "--explain", "--data", data);
        Run without = Cli.run("trace", fixture.treeId.hex(), "--explain", "--no-trace-idx", "--data", data);
        assertEquals(0, without.exit(), without::toString);
        assertEquals(2, Cli.opened(with.out()));
        assertEquals(Fixture.BLOCKS, Cli.opened(without.out()));
        assertEquals(answerPart(with.out()), answerPart(without.out()));
    }

    @Test
    void trace_absentId_exits4WithMessage() {
        Run r = Cli.run("trace", "00000000000000000000000000c0ffee", "--data", data);
        assertEquals(QueryCommand.NOT_FOUND, r.exit(), r::toString);
        assertEquals("", r.out());
        assertTrue(r.err().contains("trace 00000000000000000000000000c0ffee not found (tenant single-tenant)"),
                r::toString);
    }

    @Test
    void trace_sinceBeforeTheTrace_exits4NamingTheRange() {
        Run r = Cli.run("trace", fixture.treeId.hex(), "--since", "1h", "--data", data);
        assertEquals(QueryCommand.NOT_FOUND, r.exit(), r::toString);
        assertTrue(r.err().contains("not found (tenant single-tenant, between "), r::toString);
    }

    @Test
    void trace_tenant_readsOnlyThatTenantsBlocks() {
        String id = fixture.otherTenantTraceId.hex();
        Run other = Cli.run("trace", id, "--tenant", "team-b", "--data", data);
        assertEquals(0, other.exit(), other::toString);
        assertTrue(other.out().contains("frontend: other tenant"), other::toString);
        assertEquals(QueryCommand.NOT_FOUND, Cli.run("trace", id, "--data", data).exit());

        Run missing = Cli.run("trace", id, "--tenant", "team-c", "--data", data);
        assertEquals(QueryCommand.NOT_FOUND, missing.exit(), missing::toString);
        assertTrue(missing.err().contains("holds no blocks of tenant team-c; its tenants are single-tenant, team-b"),
                missing::toString);
    }

    @Test
    void trace_badArguments_exit2() {
        Run hex = Cli.run("trace", "not-hex", "--data", data);
        assertEquals(QueryCommand.USAGE, hex.exit(), hex::toString);
        assertTrue(hex.err().contains("a trace id is 1 to 32 hex digits, got 'not-hex'"), hex::toString);

        Run tenant = Cli.run("trace", "ab", "--tenant", "../etc", "--data", data);
        assertEquals(QueryCommand.USAGE, tenant.exit(), tenant::toString);
        assertTrue(tenant.err().contains("tenant id"), tenant::toString);

        Run both = Cli.run("trace", "ab", "--data", data, "--url", "http://127.0.0.1:1");
        assertEquals(QueryCommand.USAGE, both.exit(), both::toString);
        assertTrue(both.err().contains("give --data or --url, not both"), both::toString);

        Run range = Cli.run("trace", "ab", "--from", "2026-11-29T20:15:00Z", "--to", "1700000000", "--data", data);
        assertEquals(QueryCommand.USAGE, range.exit(), range::toString);
        assertTrue(range.err().contains("--from (2026-11-29T20:15:00.000Z) is after --to (2023-11-14T22:13:20.000Z)"),
                range::toString);
    }

    @Test
    void trace_missingDataDir_exits1WithClearMessage() {
        Path missing = dir.resolve("no-such-dir");
        Run r = Cli.run("trace", fixture.treeId.hex(), "--data", missing.toString());
        assertEquals(QueryCommand.ERROR, r.exit(), r::toString);
        assertTrue(r.err().startsWith("needle query trace: " + missing.toAbsolutePath() + " does not exist: give --data DIR"),
                r::toString);
        assertFalse(Files.exists(missing), "a read-only lookup must not create the directory");
    }

    @Test
    void trace_dataIsAFile_exits1SayingSo(@TempDir Path own) throws IOException {
        Path file = Files.writeString(own.resolve("a-file"), "not a data directory");
        Run r = Cli.run("trace", fixture.treeId.hex(), "--data", file.toString());
        assertEquals(QueryCommand.ERROR, r.exit(), r::toString);
        assertTrue(r.err().startsWith("needle query trace: " + file.toAbsolutePath() + " is a file, not a directory: "),
                r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
    }

    @Test
    void trace_truncatedDataArrow_exits3NamingTheBlock(@TempDir Path own) throws IOException {
        Fixture f = Fixture.write(own);
        Path file = FsBlockStore.readOnly(own).blockDir(f.treeBlock).resolve(BlockLayout.DATA);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2);
        }
        Run r = Cli.run("trace", f.treeId.hex(), "--data", own.toString());
        assertEquals(QueryCommand.PARTIAL, r.exit(), r::toString);
        assertTrue(r.err().startsWith("needle query trace: warning: partial answer, records may be missing:"), r::toString);
        assertTrue(r.err().contains("block " + f.treeBlock + ": "), r::toString);
        // The other block still answers: the late span is there, the truncated block's spans are not.
        assertTrue(r.out().contains("checkout: retry reservation") && !r.out().contains("GET /checkout"), r::toString);

        Run json = Cli.run("trace", f.treeId.hex(), "--json", "--data", own.toString());
        assertEquals(QueryCommand.PARTIAL, json.exit(), json::toString);
        assertEquals("\"PARTIAL\"", Cli.text(Cli.field(json.out(), "status")));
        assertTrue(Cli.text(Cli.field(json.out(), "message")).contains(f.treeBlock.toString()), json::toString);
    }

    @Test
    void help_everyCommand_exits0AndListsOptions() {
        Run top = Cli.run("--help");
        assertEquals(0, top.exit(), top::toString);
        assertTrue(top.out().contains("trace") && top.out().contains("spans") && top.out().contains("logs")
                && top.out().contains("Exit codes:"), top::toString);
        for (String sub : List.of("trace", "spans", "logs")) {
            Run r = Cli.run(sub, "--help");
            assertEquals(0, r.exit(), r::toString);
            for (String option : List.of("--data", "--url", "--tenant", "--since", "--from", "--to", "--explain",
                    "--no-time", "--no-trace-idx", "--no-attr-idx", "--no-zone-maps", "--json", " 3 ")) {
                assertTrue(r.out().contains(option), sub + " --help lacks " + option + ":\n" + r.out());
            }
        }
        Run none = Cli.run();
        assertEquals(QueryCommand.USAGE, none.exit(), none::toString);
    }

    private static List<SpanRecord> byStart(List<SpanRecord> spans) {
        return spans.stream().sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
    }

    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        throw new AssertionError("no line with " + text + " in\n" + String.join("\n", lines));
    }

    /** The output before the EXPLAIN tables. */
    private static String answerPart(String out) {
        return out.substring(0, out.indexOf("\nspans: "));
    }
}
