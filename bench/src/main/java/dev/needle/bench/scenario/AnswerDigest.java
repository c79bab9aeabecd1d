package dev.needle.bench.scenario;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * What a lookup found, reduced to a count and a digest of its records' identities in order, so that
 * answers under different mechanism settings, in another process or from DuckDB can be compared.
 *
 * @param records how many records were found
 * @param digest  SHA-256 over the sorted identities
 */
public record AnswerDigest(int records, String digest) {

    /** The answer made of spans, identified by trace and span id. */
    public static AnswerDigest ofSpans(List<SpanRecord> spans) {
        return of(spans.stream().map(s -> spanIdentity(s.traceId().hex(), s.spanId().hex())).toList());
    }

    /** The answer made of log records, identified by event time, trace and span id (what the peer returns too). */
    public static AnswerDigest ofLogs(List<LogRecord> logs) {
        return of(logs.stream().map(r -> logIdentity(r.eventTimeUnixNano(), r.traceId().hex(), r.spanId().hex())).toList());
    }

    /** A span's identity in an answer. */
    public static String spanIdentity(String traceHex, String spanHex) {
        return traceHex + "/" + spanHex;
    }

    /** A log record's identity in an answer. */
    public static String logIdentity(long timeUnixNano, String traceHex, String spanHex) {
        return timeUnixNano + "/" + traceHex + "/" + spanHex;
    }

    /** The answer made of these identities, in any order. */
    public static AnswerDigest of(List<String> identities) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            identities.stream().sorted().forEach(id -> {
                sha.update(id.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            });
            return new AnswerDigest(identities.size(), HexFormat.of().formatHex(sha.digest(), 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
