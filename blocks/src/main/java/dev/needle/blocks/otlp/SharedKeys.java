package dev.needle.blocks.otlp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One String instance per attribute key for the whole process, so that the block writer's and the
 * sidecars' hash maps find a key by String's cached hash and by {@code ==} instead of hashing and
 * comparing a new instance of it from every request.
 */
final class SharedKeys {

    /*
     * Keys are a small, slowly changing set (semantic conventions), so a fixed table suffices: a slot
     * by hash, where a key that collides replaces the one there (both are still decoded right, only
     * made anew more often). No lock: an entry is immutable and its fields final, so a thread that
     * reads an entry another has just stored sees it whole, or reads the slot's old entry or null and
     * makes the key itself. The bytes of a protobuf key and the chars of a JSON key hash alike when
     * they are ASCII (31·h + c, String's own hash), so the two decoders share those keys' instances;
     * a key beyond ASCII may sit in two slots, one per decoder. At most 4096 entries of up to
     * MAX_LENGTH chars and their UTF-8 are held: under 2 MB however many keys pass through. The entry
     * holds a copy of the key's bytes, never the request's buffer, which may be reused.
     */

    /** Keys of up to this many UTF-8 bytes (protobuf) or chars (JSON) are shared; longer ones rarely repeat. */
    static final int MAX_LENGTH = 64;
    private static final int SLOT_BITS = 12;

    /** A key and its UTF-8, which was valid when the key was made from it or is the key's own encoding. */
    private record Entry(String key, byte[] utf8) {
    }

    private static final Entry[] TABLE = new Entry[1 << SLOT_BITS];

    private SharedKeys() {
    }

    /** The key whose UTF-8 is {@code bytes[at, at + length)}, if held; null if not (then see {@link #put(String, byte[], int, int)}). */
    static String get(byte[] bytes, int at, int length) {
        if (length > MAX_LENGTH) {
            return null;
        }
        Entry e = TABLE[slot(hash(bytes, at, length))];
        if (e != null && e.utf8.length == length && Arrays.equals(e.utf8, 0, length, bytes, at, at + length)) {
            return e.key;
        }
        return null;
    }

    /** Holds {@code key}, made from the valid UTF-8 {@code bytes[at, at + length)}, for {@link #get(byte[], int, int)}. */
    static void put(String key, byte[] bytes, int at, int length) {
        if (length <= MAX_LENGTH) {
            TABLE[slot(hash(bytes, at, length))] = new Entry(key, Arrays.copyOfRange(bytes, at, at + length));
        }
    }

    /** The key whose chars are {@code chars[offset, offset + length)}, if held; null if not (then see {@link #put(String)}). */
    static String get(char[] chars, int offset, int length) {
        if (length > MAX_LENGTH) {
            return null;
        }
        int hash = 0;
        for (int i = offset; i < offset + length; i++) {
            hash = 31 * hash + chars[i];
        }
        Entry e = TABLE[slot(hash)];
        if (e != null && e.key.length() == length && sameChars(e.key, chars, offset)) {
            return e.key;
        }
        return null;
    }

    /**
     * Holds {@code key}, which has no unpaired surrogate (it would encode as '?' and so be given for
     * a protobuf key of other bytes), for {@link #get(char[], int, int)}.
     */
    static void put(String key) {
        if (key.length() <= MAX_LENGTH) {
            TABLE[slot(key.hashCode())] = new Entry(key, key.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** String's hash of the bytes as chars: String's own hash of the key when the bytes are ASCII. */
    private static int hash(byte[] bytes, int at, int length) {
        int hash = 0;
        for (int i = at; i < at + length; i++) {
            hash = 31 * hash + (bytes[i] & 0xff);
        }
        return hash;
    }

    /** Fibonacci hashing: the top bits of the product depend on every bit of the hash. */
    private static int slot(int hash) {
        return (hash * 0x9e3779b9) >>> (32 - SLOT_BITS);
    }

    private static boolean sameChars(String s, char[] chars, int offset) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
