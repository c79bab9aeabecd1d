package dev.needle.blocks.model;

/** The two kinds of record needle keeps, each in its own directory of a tenant. */
public enum Signal {
    /** Spans, under {@code <tenant>/spans/}. */
    SPANS("spans"),
    /** Log records, under {@code <tenant>/logs/}. */
    LOGS("logs");

    private final String dirName;

    Signal(String dirName) {
        this.dirName = dirName;
    }

    /** The directory name under a tenant. */
    public String dirName() {
        return dirName;
    }
}
