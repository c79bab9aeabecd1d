package dev.needle.query.ql;

import dev.needle.blocks.index.Intrinsic;
import java.util.List;
import java.util.Optional;

/**
 * The TraceQL keywords of intrinsic values: a span's status and kind by name, as queries write them and
 * needle prints them. A log's severity words are {@link dev.needle.blocks.model.Severity}'s.
 */
public final class Keywords {

    /** Status keywords; the index is the OTLP status code. */
    public static final List<String> STATUSES = List.of("unset", "ok", "error");
    /** Span kind keywords; the index is OTLP's SpanKind. */
    public static final List<String> KINDS = List.of("unspecified", "internal", "server", "client", "producer",
            "consumer");

    private Keywords() {
    }

    /**
     * The keyword of {@code value} of {@code intrinsic}: {@code unset}, {@code ok}, {@code error} for a
     * status, {@code unspecified} … {@code consumer} for a kind; empty for other intrinsics and values
     * out of range.
     */
    public static Optional<String> of(Intrinsic intrinsic, long value) {
        List<String> words = switch (intrinsic) {
            case STATUS -> STATUSES;
            case KIND -> KINDS;
            default -> List.of();
        };
        return value >= 0 && value < words.size() ? Optional.of(words.get((int) value)) : Optional.empty();
    }
}
