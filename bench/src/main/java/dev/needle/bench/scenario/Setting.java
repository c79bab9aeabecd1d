package dev.needle.bench.scenario;

import dev.needle.query.engine.Mechanisms;
import java.util.Arrays;
import java.util.Locale;

/** A mechanism setting a scenario runs under: all of them, none, or each alone. */
public enum Setting {
    ALL(Mechanisms.ALL, "all"),
    NONE(Mechanisms.NONE, "none"),
    TIME(new Mechanisms(true, false, false, false), "time only"),
    TRACE_IDX(new Mechanisms(false, true, false, false), "TRACE_IDX only"),
    ATTR_IDX(new Mechanisms(false, false, true, false), "ATTR_IDX only"),
    ZONE_MAPS(new Mechanisms(false, false, false, true), "zone maps only");

    private final Mechanisms mechanisms;
    private final String label;

    Setting(Mechanisms mechanisms, String label) {
        this.mechanisms = mechanisms;
        this.label = label;
    }

    /** The engine's switches for this setting. */
    public Mechanisms mechanisms() {
        return mechanisms;
    }

    /** The setting's name in tables and charts. */
    public String label() {
        return label;
    }

    /** The word the command line takes: {@code all}, {@code none}, {@code time}, {@code trace-idx}, … */
    public String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The setting {@code word} names. */
    public static Setting of(String word) {
        return Arrays.stream(values()).filter(s -> s.word().equals(word.trim())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown setting '" + word.trim() + "'; expected one of "
                        + String.join(", ", Arrays.stream(values()).map(Setting::word).toList())));
    }
}
