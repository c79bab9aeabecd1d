package dev.needle.blocks.model;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * OTLP's log severities, each a range of four severity numbers (1-4 TRACE to 21-24 FATAL; 0 is
 * unspecified): the one home of their names, which queries write in lowercase ({@code severity >= warn}),
 * Loki shows as a record's level, and OTLP writes in uppercase with the step in the range (WARN, WARN2).
 */
public enum Severity {
    TRACE, DEBUG, INFO, WARN, ERROR, FATAL;

    /** The highest severity number (FATAL4). */
    public static final int MAX_NUMBER = 24;

    private static final List<String> WORDS = Arrays.stream(values()).map(Severity::word).toList();

    /** The first number of this severity's range: 1, 5, 9, 13, 17 or 21. */
    public int number() {
        return 1 + 4 * ordinal();
    }

    /** The lowercase word, as queries write it and Loki names the level: {@code warn}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Every severity's {@link #word()}, from trace to fatal. */
    public static List<String> words() {
        return WORDS;
    }

    /** The severity whose range holds severity number {@code number}; none for 0 (unspecified) or past 24. */
    public static Optional<Severity> of(int number) {
        return number < 1 || number > MAX_NUMBER ? Optional.empty() : Optional.of(values()[(number - 1) / 4]);
    }

    /** OTLP's name of severity number {@code number}, 1 to 24: INFO for 9, WARN2 for 14. */
    public static String otlpName(int number) {
        Severity severity = of(number).orElseThrow(() ->
                new IllegalArgumentException("a severity number is 1 to " + MAX_NUMBER + ", got " + number));
        int step = (number - 1) % 4;
        return severity.name() + (step == 0 ? "" : Integer.toString(step + 1));
    }
}
