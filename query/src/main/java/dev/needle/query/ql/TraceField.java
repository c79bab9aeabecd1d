package dev.needle.query.ql;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The fields of a span's whole trace, {@link Attribute.Scope#TRACE}'s keys: the one home of their
 * words, {@code trace:rootService} as queries scope them and {@code rootServiceName} as Tempo's
 * unscoped words name them. Judged where the trace is looked up whole, never by an index.
 */
public enum TraceField {
    /** The {@code service.name} of the trace's root span, a string. */
    ROOT_SERVICE("rootService", "rootServiceName"),
    /** The name of the trace's root span, a string. */
    ROOT_NAME("rootName", "rootName"),
    /** From the earliest start to the latest end of any span of the trace, an int of nanoseconds. */
    DURATION("duration", "traceDuration");

    private static final List<String> WORDS = Arrays.stream(values()).map(TraceField::word).toList();

    private final String word;
    private final String tempoWord;

    TraceField(String word, String tempoWord) {
        this.word = word;
        this.tempoWord = tempoWord;
    }

    /** The word after {@code trace:}, such as {@code rootService}. */
    public String word() {
        return word;
    }

    /** Tempo's unscoped word for this field, such as {@code rootServiceName}. */
    public String tempoWord() {
        return tempoWord;
    }

    /** Whether this field's values are strings (else ints). */
    public boolean isString() {
        return this != DURATION;
    }

    /** Every field's {@link #word()}, in declaration order. */
    public static List<String> words() {
        return WORDS;
    }

    /** The field whose {@code trace:} word is {@code word}. */
    public static Optional<TraceField> find(String word) {
        return Arrays.stream(values()).filter(f -> f.word.equals(word)).findFirst();
    }

    /** The field Tempo's unscoped word {@code word} names. */
    public static Optional<TraceField> findTempoWord(String word) {
        return Arrays.stream(values()).filter(f -> f.tempoWord.equals(word)).findFirst();
    }
}
