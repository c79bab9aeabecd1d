package dev.needle.blocks.store;

/**
 * The index object of one tenant and signal as a store read it.
 *
 * @param bytes the object, or null when it is unchanged since the token the reader already knew
 * @param token its version, which a conditional write names (an ETag on a bucket); opaque to callers
 */
public record IndexObject(byte[] bytes, String token) {

    /** Whether the object is the one the reader already knew, so its bytes were not read. */
    public boolean unchanged() {
        return bytes == null;
    }
}
