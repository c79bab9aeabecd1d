package dev.needle.bench.s3;

import java.util.Arrays;
import java.util.Locale;

/** Which of the mechanisms that spare GETs a lookup may use, as the API's {@code disable} parameter turns them off. */
enum S3Setting {
    /** Every mechanism: the default. */
    ALL("all mechanisms", ""),
    /** TRACE_IDX and ATTR_IDX off (and with them BATCH_ATTR_IDX): every block of the time range is opened. */
    NO_SIDECARS("no sidecars", "trace_idx,attr_idx"),
    /** The index off: the blocks come from a listing, their filters and meta.json from their own files. */
    NO_INDEX("no index", "index"),
    /** Neither: a listing, and every block opened. */
    NEITHER("no sidecars, no index", "trace_idx,attr_idx,index");

    private final String label;
    private final String disable;

    S3Setting(String label, String disable) {
        this.label = label;
        this.disable = disable;
    }

    /** For tables. */
    String label() {
        return label;
    }

    /** The query-string parameters that turn the mechanisms off: "" or {@code &disable=...}. */
    String parameters() {
        return disable.isEmpty() ? "" : "&disable=" + disable;
    }

    /** The word the command line takes: {@code all}, {@code no-sidecars}, {@code no-index}, {@code neither}. */
    String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The setting {@code word} names. */
    static S3Setting of(String word) {
        return Arrays.stream(values()).filter(s -> s.word().equals(word.trim())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown setting '" + word.trim() + "'; expected one of "
                        + String.join(", ", Arrays.stream(values()).map(S3Setting::word).toList())));
    }
}
