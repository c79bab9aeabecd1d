package dev.needle.bench.scenario;

import dev.needle.query.engine.Mechanisms;

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
}
