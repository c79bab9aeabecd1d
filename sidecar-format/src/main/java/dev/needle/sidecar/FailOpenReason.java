package dev.needle.sidecar;

/** Why a sidecar could not be trusted, so that its block must be scanned. */
public enum FailOpenReason {
    /** No file: the writer found no keys, or more than {@link BloomSidecar#MAX_KEYS}. */
    MISSING("missing"),
    /** Fewer bytes than the 16-byte header. */
    SHORT("short"),
    /** The first four bytes are not {@code NBLM}. */
    MAGIC("magic"),
    /** A version this reader does not know. */
    VERSION("version"),
    /** The probe count is outside 1..16. */
    K("k"),
    /** The word count is zero, not a power of two, or larger than the format allows. */
    WORDS("words"),
    /** The file length is not 16 + 8 · words. */
    LENGTH("length"),
    /** A flag bit this version does not define. */
    FLAGS("flags"),
    /** The stored CRC-32C does not match the bytes. */
    CRC("crc"),
    /** The file could not be read. */
    IO("io");

    private final String label;

    FailOpenReason(String label) {
        this.label = label;
    }

    /** The stable lower-case name used in EXPLAIN output, metrics and JSON. */
    public String label() {
        return label;
    }
}
