package dev.needle.blocks.otlp;

import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.Bytes;
import java.util.ArrayList;
import java.util.List;

/**
 * The id rules every decoder applies, and the tally of the records a request loses with the first
 * few reasons, so that the protobuf and JSON paths reject exactly the same records in the same words.
 */
final class Rejections {

    /** Enough reasons for a person to see the pattern; the count covers the rest. */
    private static final int MAX_REASONS = 3;
    private static final int MAX_QUOTED = 40;
    /** The reason given for a value that no block could hold. */
    static final String TOO_DEEP = "a value nests arrays and kvlists deeper than " + ValueCodec.MAX_DEPTH;

    private final String noun;
    private final String plural;
    private final List<String> reasons = new ArrayList<>(MAX_REASONS);
    private int count;

    private Rejections(String noun, String plural) {
        this.noun = noun;
        this.plural = plural;
    }

    static Rejections spans() {
        return new Rejections("span", "spans");
    }

    static Rejections logs() {
        return new Rejections("log record", "log records");
    }

    /** Rejects item {@code index} (0-based, within its scope's list) of the scope named {@code scopeName}. */
    void reject(int index, String scopeName, String reason) {
        count++;
        if (reasons.size() < MAX_REASONS) {
            reasons.add(noun + " " + index + " of scope " + quote(scopeName) + ": " + reason);
        }
    }

    <T> Decoded<T> result(List<T> kept) {
        if (count == 0) {
            return new Decoded<>(kept, 0, "");
        }
        StringBuilder message = new StringBuilder("rejected ").append(count).append(" of ")
                .append(count + kept.size()).append(' ').append(plural).append(": ").append(String.join("; ", reasons));
        if (count > reasons.size()) {
            message.append("; and ").append(count - reasons.size()).append(" more");
        }
        return new Decoded<>(kept, count, message.toString());
    }

    /** Why a span's ids make it unusable, or null: a trace-by-id lookup needs real ids. */
    static String spanProblem(Bytes traceId, Bytes spanId, Bytes parentSpanId) {
        if (traceId.length() != 16) {
            return "trace_id has " + traceId.length() + " bytes, expected 16";
        }
        if (allZero(traceId)) {
            return "trace_id is all zero";
        }
        if (spanId.length() != 8) {
            return "span_id has " + spanId.length() + " bytes, expected 8";
        }
        if (allZero(spanId)) {
            return "span_id is all zero";
        }
        if (!parentSpanId.isEmpty() && parentSpanId.length() != 8) {
            return "parent_span_id has " + parentSpanId.length() + " bytes, expected 8 or none";
        }
        return null;
    }

    /** Why a log record's ids make it unusable, or null; a log need not belong to a trace. */
    static String logProblem(Bytes traceId, Bytes spanId) {
        if (!traceId.isEmpty() && traceId.length() != 16) {
            return "trace_id has " + traceId.length() + " bytes, expected 16 or none";
        }
        if (!traceId.isEmpty() && allZero(traceId)) {
            return "trace_id is all zero";
        }
        if (!spanId.isEmpty() && spanId.length() != 8) {
            return "span_id has " + spanId.length() + " bytes, expected 8 or none";
        }
        return null;
    }


    /** {@code s} in quotes, cut short: reasons go into a reply and a log line. */
    static String quote(String s) {
        return "'" + (s.length() <= MAX_QUOTED ? s : s.substring(0, MAX_QUOTED) + "…") + "'";
    }

    private static boolean allZero(Bytes id) {
        for (byte b : id.unsafeArray()) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
