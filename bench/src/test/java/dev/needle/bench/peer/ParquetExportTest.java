package dev.needle.bench.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetExportTest {

    static final ParquetExport.Options OPTIONS = ParquetExport.Options.defaults().withRowsPerFile(2500).withRowGroupSize(2048);

    @TempDir
    static Path tmp;
    static List<SpanRecord> spans;
    static ParquetExport.Result result;

    @BeforeAll
    static void export() throws Exception {
        spans = PeerCorpus.spans(6000, 7);
        result = new ParquetExport(PeerCorpus.SPAN_COLUMNS, OPTIONS)
                .exportSpans(PeerCorpus.chunks(spans, 1000).iterator(), tmp.resolve("spans"));
    }

    @Test
    void exportSpans_cutsOneFilePerRowsPerFileWithSeveralRowGroups() throws Exception {
        assertEquals(spans.size(), result.rows());
        assertEquals((spans.size() + 2499) / 2500, result.files().size());
        assertEquals(0, result.typeMismatches());
        try (DuckDbPeer peer = DuckDbPeer.open(tmp.resolve("spans"), Signal.SPANS)) {
            TreeMap<String, Long> rowsPerFile = new TreeMap<>();
            List<Long> rowGroupRows = new ArrayList<>();
            for (DuckDbPeer.ColumnChunk c : peer.columnChunks()) {
                if (c.column().equals("trace_id")) {
                    rowsPerFile.merge(c.file(), c.rows(), Long::sum);
                    rowGroupRows.add(c.rows());
                }
            }
            assertEquals(List.of(2500L, 2500L, (long) spans.size() - 5000), new ArrayList<>(rowsPerFile.values()));
            assertEquals(List.of(2048L, 452L, 2048L, 452L, (long) spans.size() - 5000), rowGroupRows);
        }
    }

    @Test
    void exportSpans_writesBloomFiltersOnTraceIdAndEveryNonBooleanAttribute() throws Exception {
        Set<String> filtered = Set.of("trace_id", "resource_service_name", "resource_k8s_pod_name", "span_http_route",
                "span_http_response_status_code", "span_sampling_ratio", "span_user_id");
        Set<String> seen = new HashSet<>();
        try (DuckDbPeer peer = DuckDbPeer.open(tmp.resolve("spans"), Signal.SPANS)) {
            for (DuckDbPeer.ColumnChunk c : peer.columnChunks()) {
                if (filtered.contains(c.column())) {
                    seen.add(c.column());
                    assertTrue(c.encodings().contains("DICTIONARY"), c.toString());
                    assertTrue(c.bloomFilterLength() > 0, c.toString());
                } else if (c.column().equals("span_error")) {
                    assertEquals(0, c.bloomFilterLength(), "booleans are never dictionary-encoded: " + c);
                }
            }
        }
        assertEquals(filtered, seen);
    }

    @Test
    void duckDbDefaults_writeNoBloomFilterForAHighCardinalityColumn() throws Exception {
        // The control for DICTIONARY_SIZE_LIMIT: the same rows written with DuckDB's defaults lose the user id's filter.
        Path copy = tmp.resolve("defaults.parquet");
        try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement st = conn.createStatement()) {
            st.execute("COPY (SELECT * FROM read_parquet('" + result.files().get(0) + "')) TO '" + copy
                    + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
            try (ResultSet rs = st.executeQuery("SELECT path_in_schema, bool_and(bloom_filter_length IS NULL),"
                    + " bool_and(bloom_filter_length > 0) FROM parquet_metadata('" + copy + "')"
                    + " WHERE path_in_schema IN ('span_user_id', 'trace_id') GROUP BY ALL ORDER BY 1")) {
                assertTrue(rs.next());
                assertEquals("span_user_id", rs.getString(1));
                assertTrue(rs.getBoolean(2), "no Bloom filter on the user id with the default dictionary limit");
                assertTrue(rs.next());
                assertEquals("trace_id", rs.getString(1));
                assertTrue(rs.getBoolean(3), "trace ids (one per 5-15 rows) stay under the default limit");
            }
        }
    }

    @Test
    void exportSpans_sortsEachFileByTraceIdThenStartTime_andKeepsArrivalSlices() throws Exception {
        try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement st = conn.createStatement()) {
            for (int f = 0; f < result.files().size(); f++) {
                List<SpanRecord> slice = spans.subList(f * 2500, Math.min(spans.size(), (f + 1) * 2500));
                List<SpanRecord> expected = new ArrayList<>(slice);
                expected.sort((a, b) -> a.traceId().compareTo(b.traceId()) != 0 ? a.traceId().compareTo(b.traceId())
                        : Long.compare(a.startTimeUnixNano(), b.startTimeUnixNano()));
                List<Bytes> actual = new ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT span_id FROM read_parquet('" + result.files().get(f)
                        + "', file_row_number = true) ORDER BY file_row_number")) {
                    while (rs.next()) {
                        actual.add(Bytes.wrap(rs.getBytes(1)));
                    }
                }
                assertEquals(expected.stream().map(SpanRecord::spanId).toList(), actual, "file " + f);
            }
        }
    }

    @Test
    void exportSpans_writesAValueOfAnotherTypeAsNullAndCountsIt(@TempDir Path dir) throws Exception {
        SpanRecord s = PeerCorpus.spans(1, 1).get(0);
        List<KeyValue> attributes = new ArrayList<>(s.attributes());
        attributes.removeIf(kv -> kv.key().equals("user.id"));
        attributes.add(KeyValue.of("user.id", 42));
        SpanRecord odd = s.toBuilder().attributes(attributes).droppedAttributesCount(0).events(List.of())
                .droppedEventsCount(0).links(List.of()).droppedLinksCount(0).build();
        ParquetExport.Result r = new ParquetExport(PeerCorpus.SPAN_COLUMNS, OPTIONS)
                .exportSpans(List.of(List.of(odd)).iterator(), dir);
        assertEquals(1, r.typeMismatches());
        assertEquals(List.of("null"), query("SELECT coalesce(span_user_id, 'null') FROM '" + r.files().get(0) + "'"));
    }

    @Test
    void exportLogs_sortsByEventTimeAndFlattensLogAttributes(@TempDir Path dir) throws Exception {
        List<LogRecord> logs = PeerCorpus.logs(3000, 11);
        ParquetExport.Result r = new ParquetExport(PeerCorpus.LOG_COLUMNS, OPTIONS)
                .exportLogs(PeerCorpus.chunks(logs, 700).iterator(), dir);
        assertEquals(2, r.files().size());
        List<Long> expected = new ArrayList<>();
        logs.subList(0, 2500).forEach(l -> expected.add(l.eventTimeUnixNano()));
        expected.sort(Long::compare);
        List<String> times = query("SELECT time_unix_nano FROM read_parquet('" + r.files().get(0)
                + "', file_row_number = true) ORDER BY file_row_number");
        assertEquals(expected.stream().map(String::valueOf).toList(), times);
        assertEquals(List.of(((AnyValue.Str) logs.get(0).attributes().get(0).value()).value()),
                query("SELECT log_user_id FROM '" + r.files().get(0) + "' ORDER BY observed_time_unix_nano LIMIT 1"));
        try (DuckDbPeer peer = DuckDbPeer.open(dir, Signal.LOGS)) {
            assertTrue(peer.columnChunks().stream().filter(c -> c.column().equals("log_user_id"))
                    .allMatch(c -> c.bloomFilterLength() > 0));
        }
    }

    @Test
    void export_refusesADirectoryThatAlreadyHoldsParquetFiles() {
        ParquetExport export = new ParquetExport(PeerCorpus.SPAN_COLUMNS, OPTIONS);
        assertThrows(IllegalArgumentException.class, () -> export.exportSpans(List.of(spans).iterator(), tmp.resolve("spans")));
    }

    @Test
    void export_refusesAColumnFromTheOtherSignal(@TempDir Path dir) {
        ParquetExport export = new ParquetExport(PeerCorpus.LOG_COLUMNS, OPTIONS);
        assertThrows(IllegalArgumentException.class, () -> export.exportSpans(List.of(spans).iterator(), dir));
    }

    @Test
    void options_refuseARowGroupSizeThatIsNotAWholeNumberOfVectors() {
        assertThrows(IllegalArgumentException.class, () -> OPTIONS.withRowGroupSize(3000));
        assertTrue(OPTIONS.copyOptions().contains("DICTIONARY_SIZE_LIMIT 4096"), OPTIONS.copyOptions());
    }

    private static List<String> query(String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
