package dev.needle.query.loki;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.query.engine.Explain;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.QueryApi;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;

/**
 * Loki's reply shapes: {@code {"status":"success","data":…}}, its query statistics, and needle's
 * own counts in the headers that {@code /api/search} uses too.
 */
final class LokiReplies {

    private LokiReplies() {
    }

    /** {@code {"status":"success","data":…}} with what {@code data} writes as the value of data. */
    static ApiReply success(JsonReplies.Fields data) {
        return JsonReplies.object(200, g -> {
            g.writeStringField("status", "success");
            g.writeFieldName("data");
            data.write(g);
        });
    }

    /**
     * {@code "stats"} in the shape Loki documents (ingester, store, summary), filled from the plans:
     * the blocks are Loki's chunks, the head is its ingesters' memory.
     */
    static void stats(JsonGenerator g, List<Explain> plans, long execNanos) throws IOException {
        long listed = 0;
        long opened = 0;
        long rows = 0;
        long bytes = 0;
        long headRows = 0;
        for (Explain plan : plans) {
            Explain.Totals t = plan.totals();
            listed += t.listed();
            opened += t.opened();
            rows += t.rowsScanned();
            bytes += t.bytesRead();
            headRows += t.headRows();
        }
        double seconds = execNanos / 1e9;
        g.writeObjectFieldStart("stats");
        g.writeObjectFieldStart("ingester");
        g.writeNumberField("compressedBytes", 0);
        g.writeNumberField("decompressedBytes", 0);
        g.writeNumberField("decompressedLines", 0);
        g.writeNumberField("headChunkBytes", 0);
        g.writeNumberField("headChunkLines", headRows);
        g.writeNumberField("totalBatches", 0);
        g.writeNumberField("totalChunksMatched", 0);
        g.writeNumberField("totalDuplicates", 0);
        g.writeNumberField("totalLinesSent", 0);
        g.writeNumberField("totalReached", 1);
        g.writeEndObject();
        g.writeObjectFieldStart("store");
        g.writeNumberField("compressedBytes", bytes);
        g.writeNumberField("decompressedBytes", bytes);
        g.writeNumberField("decompressedLines", rows);
        g.writeNumberField("chunksDownloadTime", 0.0);
        g.writeNumberField("totalChunksRef", listed);
        g.writeNumberField("totalChunksDownloaded", opened);
        g.writeNumberField("totalDuplicates", 0);
        g.writeEndObject();
        g.writeObjectFieldStart("summary");
        g.writeNumberField("bytesProcessedPerSecond", seconds > 0 ? (long) (bytes / seconds) : 0);
        g.writeNumberField("execTime", seconds);
        g.writeNumberField("linesProcessedPerSecond", seconds > 0 ? (long) ((rows + headRows) / seconds) : 0);
        g.writeNumberField("queueTime", 0.0);
        g.writeNumberField("totalBytesProcessed", bytes);
        g.writeNumberField("totalLinesProcessed", rows + headRows);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** {@code X-Needle-Status} (and message) and the blocks the lookups opened and did not, as {@code /api/search} has. */
    static ApiReply withHeaders(ApiReply reply, List<String> problems, List<Explain> plans) {
        int listed = 0;
        int opened = 0;
        for (Explain plan : plans) {
            listed += plan.totals().listed();
            opened += plan.totals().opened();
        }
        return reply.withStatusHeaders(problems)
                .withHeader(QueryApi.INSPECTED_HEADER, Integer.toString(opened))
                .withHeader(QueryApi.SKIPPED_HEADER, Integer.toString(listed - opened));
    }

    /** A time in Prometheus' JSON: Unix seconds with up to three decimals, written as a number. */
    static void seconds(JsonGenerator g, long unixMillis) throws IOException {
        g.writeNumber(BigDecimal.valueOf(unixMillis, 3).stripTrailingZeros().toPlainString());
    }
}
