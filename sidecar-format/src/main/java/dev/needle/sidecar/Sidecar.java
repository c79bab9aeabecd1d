package dev.needle.sidecar;

import java.util.Optional;

/**
 * A read sidecar: either verified, answering from its bits, or failed open, answering "maybe"
 * to everything together with the reason it could not be trusted.
 */
public final class Sidecar implements KeyFilter {

    private final BloomBits bits;
    private final int flags;
    private final FailOpenReason reason;
    private final String detail;
    private final long bytesRead;

    private Sidecar(BloomBits bits, int flags, FailOpenReason reason, String detail, long bytesRead) {
        this.bits = bits;
        this.flags = flags;
        this.reason = reason;
        this.detail = detail;
        this.bytesRead = bytesRead;
    }

    static Sidecar verified(BloomBits bits, int flags, long bytesRead) {
        return new Sidecar(bits, flags, null, "verified", bytesRead);
    }

    /** A sidecar that cannot rule anything out, for {@code reason}. */
    public static Sidecar failedOpen(FailOpenReason reason, String detail, long bytesRead) {
        return new Sidecar(null, 0, reason, detail, bytesRead);
    }

    /** Whether the file was verified, so that a "no" from it is certain. */
    @Override
    public boolean isVerified() {
        return bits != null;
    }

    /** Why the file was not trusted; empty when verified. */
    @Override
    public Optional<FailOpenReason> failOpenReason() {
        return Optional.ofNullable(reason);
    }

    /** A sentence on the verdict: "verified", or what exactly was wrong. */
    public String detail() {
        return detail;
    }

    /** Bytes read from disk to reach this verdict. */
    public long bytesRead() {
        return bytesRead;
    }

    /** The verified bits; empty when failed open. */
    public Optional<BloomBits> bits() {
        return Optional.ofNullable(bits);
    }

    /** The flags byte of a verified file; 0 when failed open. */
    public int flags() {
        return flags;
    }

    @Override
    public boolean mayContain(long h1, long h2) {
        return bits == null || bits.mayContain(h1, h2);
    }

    /** False only when the verified filter proves the 16-byte trace id absent. */
    public boolean mayContainTraceId(byte[] id) {
        TraceIdxBuilder.checkTraceId(id);
        return mayContainTraceId(KeyMix.traceIdLo(id, 0), KeyMix.traceIdHi(id, 0));
    }

    /**
     * False only when the verified BATCH_ATTR_IDX proves the attribute pair absent from record
     * batch {@code batch} (see {@link BatchAttrIdxBuilder} for the key).
     */
    public boolean mayContain(AttributeHash pair, int batch) {
        if (bits == null) {
            return true;
        }
        long lo = KeyMix.batchLo(pair.lo(), batch);
        return bits.mayContain(KeyMix.h1(lo, pair.hi()), KeyMix.h2(lo, pair.hi()));
    }

    @Override
    public boolean mayHoldDoubles() {
        return bits == null || (flags & BloomSidecar.FLAG_HAS_DOUBLE) != 0;
    }

    /** Heap bytes this sidecar keeps, for caches bounded by bytes. */
    public long sizeInBytes() {
        return 64 + (bits == null ? detail.length() * 2L : bits.sizeInBytes());
    }

    @Override
    public String toString() {
        return isVerified() ? "Sidecar[verified, " + bits.words() + " words]" : "Sidecar[failed open: " + reason.label() + ", " + detail + "]";
    }
}
