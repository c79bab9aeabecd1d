package dev.needle.ingest.head;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Block ids that say which cut of the head a block came from: {@code w<sequence, 19 digits>c<chunk,
 * 3 digits>n<chunks, 3 digits>}, then {@code o<writer>} for a writer that shares its store with
 * others (an ingest node: see {@code ingest/server/WriterId}). A cut holds every write-ahead log
 * entry up to its sequence, and may write a tenant's signal as several chunks; once all chunks of a
 * cut are published, every entry of that tenant and signal up to the sequence is in blocks. Recovery
 * reads this from the names of its own writer's blocks, so that nothing already published is replayed
 * twice, and another writer's blocks (whose sequences are of another log) are never taken for its own.
 */
public final class CutIds {

    private static final Pattern ID = Pattern.compile("w(\\d{19})c(\\d{3})n(\\d{3})(?:o([0-9a-z]{1,16}))?");
    private static final Pattern WRITER = Pattern.compile("[0-9a-z]{0,16}");

    /** One block's place in its cut, and the writer of the cut ("" for the store's one unnamed writer). */
    public record Chunk(String writer, long sequence, int index, int count) {
    }

    private CutIds() {
    }

    /** The id of chunk {@code index} of {@code count} of {@code writer}'s cut up to {@code sequence}. */
    public static String id(String writer, long sequence, int index, int count) {
        if (count < 1 || count > 999 || index < 0 || index >= count) {
            throw new IllegalArgumentException("chunk " + index + " of " + count + " is not in 0..998 of 1..999");
        }
        if (!WRITER.matcher(writer).matches()) {
            throw new IllegalArgumentException("a writer id is up to 16 of [0-9a-z], got '" + writer + "'");
        }
        return String.format("w%019dc%03dn%03d", sequence, index, count) + (writer.isEmpty() ? "" : "o" + writer);
    }

    /** The cut a block id names, or empty for ids that are not cut ids (other writers' blocks). */
    public static Optional<Chunk> parse(String id) {
        Matcher m = ID.matcher(id);
        if (!m.matches()) {
            return Optional.empty();
        }
        int index = Integer.parseInt(m.group(2));
        int count = Integer.parseInt(m.group(3));
        String writer = m.group(4) == null ? "" : m.group(4);
        return index < count ? Optional.of(new Chunk(writer, Long.parseLong(m.group(1)), index, count)) : Optional.empty();
    }
}
