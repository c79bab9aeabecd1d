package dev.needle.bench.peer;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.write.BlockWriter;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Writes spans or log records as Parquet files through DuckDB, cut and sorted like needle's blocks
 * (one file per {@link Options#rowsPerFile()} records in arrival order; spans sorted by trace id then
 * start time, logs by event time), with a Bloom filter on the trace id and on every flattened
 * attribute column in every row group.
 *
 * <p>Records are loaded into an in-memory DuckDB table with the JDBC appender, then written with
 * {@code COPY … TO 'file.parquet'}. The options that make the Bloom filters appear, checked with
 * {@code parquet_metadata()} on DuckDB 2.0.0:
 * <ul>
 *   <li>DuckDB writes a Bloom filter only for a column chunk it dictionary-encodes, and abandons the
 *       dictionary once a chunk has more than {@code DICTIONARY_SIZE_LIMIT} distinct values. The
 *       default limit is {@code ROW_GROUP_SIZE / 5}: trace ids (one per 8–20 spans) stay under it,
 *       but a high-cardinality attribute such as {@code user.id} does not and gets neither
 *       dictionary nor filter. The limit is set to the row group size plus one vector, more than a
 *       chunk can hold. It is not set higher because the writer allocates about 48 bytes per allowed
 *       entry up front (a limit of 2^31 fails with "failed to allocate 96.0 GiB").</li>
 *   <li>A string dictionary larger than {@code STRING_DICTIONARY_PAGE_SIZE_LIMIT} bytes also falls
 *       back to PLAIN without a filter (seen with a 1 MB limit and 57 MB of distinct strings); it is
 *       set to its maximum, 1 GiB, so the outcome does not depend on the version's default.</li>
 *   <li>{@code BLOOM_FILTER_FALSE_POSITIVE_RATIO} (default 0.01) sizes each filter; 0.01 is close to
 *       the ~0.8% of needle's 10 bits per key with 7 probes.</li>
 *   <li>Booleans are never dictionary-encoded, so a BOOLEAN column never has a filter.</li>
 * </ul>
 * DuckDB has no per-column switch, so the raised limit dictionary-encodes and filters every
 * column, span ids and times included. On a 300,000-span file of the default corpus with
 * 32,768-row groups that cost, against DuckDB's defaults: column data 16.3 MB instead of 13.9 MB,
 * Bloom filters 2.8 MB instead of 0.13 MB (the trace id's own are 37 KB), and 0.9 s instead of
 * 0.6 s for the {@code COPY}. Only the filters of the columns a query filters on are ever read.
 */
public final class ParquetExport {

    /** Rows per file, as needle's seed-sized blocks hold. */
    public static final int DEFAULT_ROWS_PER_FILE = 300_000;
    /**
     * Rows per row group: four of needle's 8,192-row record batches. Measured on 5M spans in 17
     * files, this gave DuckDB its fastest trace lookups: with 8,192-row groups the footers it
     * parses on every query (37 row groups of 24 columns, about 150 KB a file) cost more than the
     * rows, and with 131,072-row groups decoding the one candidate group costs more than the footers.
     */
    public static final int DEFAULT_ROW_GROUP_SIZE = 4 * 8192;

    /** DuckDB's vector size: a row group can overshoot ROW_GROUP_SIZE by up to one vector. */
    private static final int VECTOR_SIZE = 2048;
    /** The largest STRING_DICTIONARY_PAGE_SIZE_LIMIT DuckDB accepts. */
    private static final long MAX_STRING_DICTIONARY_PAGE_SIZE = 1L << 30;
    private static final String STAGING = "staging";

    /** Parquet page compression codecs DuckDB writes. */
    public enum Codec {
        /** No compression. */
        UNCOMPRESSED,
        /** DuckDB's default. */
        SNAPPY,
        /** ZSTD at DuckDB's default level. */
        ZSTD,
        /** LZ4 (raw). */
        LZ4
    }

    /**
     * How files are cut and written.
     *
     * @param rowsPerFile             records per file, like rows per needle block
     * @param rowGroupSize            rows per row group, a multiple of DuckDB's 2,048-row vector
     * @param bloomFalsePositiveRatio the false-positive ratio each Bloom filter is sized for
     * @param codec                   page compression
     */
    public record Options(int rowsPerFile, int rowGroupSize, double bloomFalsePositiveRatio, Codec codec) {

        public Options {
            if (rowsPerFile <= 0) {
                throw new IllegalArgumentException("rowsPerFile (" + rowsPerFile + ") must be positive");
            }
            if (rowGroupSize <= 0 || rowGroupSize % VECTOR_SIZE != 0) {
                throw new IllegalArgumentException(
                        "rowGroupSize (" + rowGroupSize + ") must be a positive multiple of " + VECTOR_SIZE);
            }
            if (!(bloomFalsePositiveRatio > 0 && bloomFalsePositiveRatio < 1)) {
                throw new IllegalArgumentException(
                        "bloomFalsePositiveRatio (" + bloomFalsePositiveRatio + ") must be in (0, 1)");
            }
            if (codec == null) {
                throw new IllegalArgumentException("codec must not be null");
            }
        }

        /** 300,000 rows per file, 32,768 per row group, FPR 0.01, SNAPPY (DuckDB's default codec). */
        public static Options defaults() {
            return new Options(DEFAULT_ROWS_PER_FILE, DEFAULT_ROW_GROUP_SIZE, 0.01, Codec.SNAPPY);
        }

        /** These options with {@code rows} records per file. */
        public Options withRowsPerFile(int rows) {
            return new Options(rows, rowGroupSize, bloomFalsePositiveRatio, codec);
        }

        /** These options with {@code rows} rows per row group. */
        public Options withRowGroupSize(int rows) {
            return new Options(rowsPerFile, rows, bloomFalsePositiveRatio, codec);
        }

        /** The option list of the {@code COPY} statement. */
        public String copyOptions() {
            return "FORMAT parquet"
                    + ", ROW_GROUP_SIZE " + rowGroupSize
                    + ", DICTIONARY_SIZE_LIMIT " + (rowGroupSize + VECTOR_SIZE)
                    + ", STRING_DICTIONARY_PAGE_SIZE_LIMIT " + MAX_STRING_DICTIONARY_PAGE_SIZE
                    + ", WRITE_BLOOM_FILTER true"
                    + ", BLOOM_FILTER_FALSE_POSITIVE_RATIO " + bloomFalsePositiveRatio
                    + ", COMPRESSION " + codec.name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What an export wrote.
     *
     * @param files          the Parquet files, in the order the records arrived
     * @param rows           records written
     * @param bytes          the files' total size
     * @param typeMismatches attribute values written as NULL because their type was not the column's
     * @param elapsedNanos   wall time of the whole export, loading and sorting included
     */
    public record Result(List<Path> files, long rows, long bytes, long typeMismatches, long elapsedNanos) {
        public Result {
            files = List.copyOf(files);
        }
    }

    private final List<FlattenedAttribute> columns;
    private final Options options;

    /** An exporter that flattens {@code columns} and writes with {@code options}. */
    public ParquetExport(List<FlattenedAttribute> columns, Options options) {
        this.columns = List.copyOf(columns);
        this.options = options;
    }

    /** Writes {@code batches} of spans into {@code dir}, which must hold no Parquet files yet. */
    public Result exportSpans(Iterator<? extends List<SpanRecord>> batches, Path dir) throws IOException, SQLException {
        return export(batches, dir, Signal.SPANS, BlockWriter.SPAN_ORDER, this::appendSpan);
    }

    /** Writes {@code batches} of log records into {@code dir}, which must hold no Parquet files yet. */
    public Result exportLogs(Iterator<? extends List<LogRecord>> batches, Path dir) throws IOException, SQLException {
        return export(batches, dir, Signal.LOGS, BlockWriter.LOG_ORDER, this::appendLog);
    }

    @FunctionalInterface
    private interface RowAppender<R> {
        /** Appends one row and returns how many attribute values were dropped for their type. */
        long append(DuckDBAppender appender, R record) throws SQLException;
    }

    private <R> Result export(Iterator<? extends List<R>> batches, Path dir, Signal signal, Comparator<R> order,
                              RowAppender<R> appender) throws IOException, SQLException {
        PeerSchema.checkSources(signal, columns);
        Files.createDirectories(dir);
        try (DirectoryStream<Path> existing = Files.newDirectoryStream(dir, "*.parquet")) {
            if (existing.iterator().hasNext()) {
                throw new IllegalArgumentException(dir + " already holds Parquet files: a peer query would read them too");
            }
        }
        long start = System.nanoTime();
        List<Path> files = new ArrayList<>();
        long rows = 0;
        long bytes = 0;
        long mismatches = 0;
        try (DuckDBConnection conn = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:")) {
            List<R> pending = new ArrayList<>();
            while (batches.hasNext()) {
                for (R record : batches.next()) {
                    pending.add(record);
                    if (pending.size() == options.rowsPerFile()) {
                        mismatches += writeFile(conn, pending, dir, files, signal, order, appender);
                        rows += pending.size();
                        pending.clear();
                    }
                }
            }
            if (!pending.isEmpty()) {
                mismatches += writeFile(conn, pending, dir, files, signal, order, appender);
                rows += pending.size();
            }
        }
        for (Path file : files) {
            bytes += Files.size(file);
        }
        return new Result(files, rows, bytes, mismatches, System.nanoTime() - start);
    }

    /**
     * Sorts one file's records, loads them, writes them under a temporary name and renames the file
     * (so that a reader's glob never meets a half-written one), then adds it to {@code files}.
     */
    private <R> long writeFile(DuckDBConnection conn, List<R> records, Path dir, List<Path> files, Signal signal,
                               Comparator<R> order, RowAppender<R> appender) throws IOException, SQLException {
        records.sort(order);
        Path file = dir.resolve(String.format(Locale.ROOT, "%06d.parquet", files.size()));
        long mismatches = 0;
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Statement st = conn.createStatement()) {
            st.execute(PeerSchema.createTable(STAGING, signal, columns));
            try (DuckDBAppender app = conn.createAppender(DuckDBConnection.DEFAULT_SCHEMA, STAGING)) {
                for (R record : records) {
                    mismatches += appender.append(app, record);
                }
            }
            // A table scan keeps insertion order (preserve_insertion_order is on by default), so the file keeps the sort.
            st.execute("COPY " + STAGING + " TO " + PeerSchema.literal(tmp.toAbsolutePath().toString())
                    + " (" + options.copyOptions() + ")");
            st.execute("DROP TABLE " + STAGING);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        files.add(file);
        return mismatches;
    }

    private long appendSpan(DuckDBAppender a, SpanRecord s) throws SQLException {
        a.beginRow();
        appendId(a, s.traceId());
        appendId(a, s.spanId());
        appendId(a, s.parentSpanId());
        a.append(s.name());
        a.append(s.kind());
        a.append(s.startTimeUnixNano());
        a.append(s.endTimeUnixNano());
        a.append(s.durationNano());
        a.append(s.statusCode());
        a.append(s.statusMessage());
        a.append(s.scope().name());
        long mismatches = appendAttributes(a, s.resource().attributes(), s.attributes());
        a.endRow();
        return mismatches;
    }

    private long appendLog(DuckDBAppender a, LogRecord r) throws SQLException {
        a.beginRow();
        a.append(r.eventTimeUnixNano());
        a.append(r.observedTimeUnixNano());
        a.append(r.severityNumber());
        a.append(r.severityText());
        // A scalar body as text; bytes, arrays and maps have no text column here and are NULL.
        a.append(r.body().scalarText());
        appendId(a, r.traceId());
        appendId(a, r.spanId());
        a.append(r.scope().name());
        long mismatches = appendAttributes(a, r.resource().attributes(), r.attributes());
        a.endRow();
        return mismatches;
    }

    /** Empty ids (a root span's parent, an uncorrelated log record) are NULL, as a user would load them. */
    private static void appendId(DuckDBAppender a, Bytes id) throws SQLException {
        if (id == null || id.isEmpty()) {
            a.appendNull();
        } else {
            a.append(id.unsafeArray());
        }
    }


    private long appendAttributes(DuckDBAppender a, List<KeyValue> resource, List<KeyValue> own) throws SQLException {
        long mismatches = 0;
        for (FlattenedAttribute column : columns) {
            AnyValue value = column.find(column.source() == FlattenedAttribute.Source.RESOURCE ? resource : own);
            if (value == null) {
                a.appendNull();
            } else if (!column.type().holds(value)) {
                a.appendNull();
                mismatches++;
            } else if (value instanceof AnyValue.Str s) {
                a.append(s.value());
            } else if (value instanceof AnyValue.Int i) {
                a.append(i.value());
            } else if (value instanceof AnyValue.Dbl d) {
                a.append(d.value());
            } else {
                a.append(((AnyValue.Bool) value).value());
            }
        }
        return mismatches;
    }
}
