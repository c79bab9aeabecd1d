package dev.needle.ingest.head;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Block ids that say which cut of the head a block came from: {@code w<sequence, 19 digits>c<chunk,
 * 3 digits>n<chunks, 3 digits>}. A cut holds every write-ahead log entry up to its sequence, and
 * may write a tenant's signal as several chunks; once all chunks of a cut are published, every
 * entry of that tenant and signal up to the sequence is in blocks. Recovery reads this from the
 * block names, so that nothing already published is replayed twice.
 */
public final class CutIds {

    private static final Pattern ID = Pattern.compile("w(\\d{19})c(\\d{3})n(\\d{3})");

    /** One block's place in its cut. */
    public record Chunk(long sequence, int index, int count) {
    }

    private CutIds() {
    }

    /** The id of chunk {@code index} of {@code count} of the cut up to {@code sequence}. */
    public static String id(long sequence, int index, int count) {
        if (count < 1 || count > 999 || index < 0 || index >= count) {
            throw new IllegalArgumentException("chunk " + index + " of " + count + " is not in 0..998 of 1..999");
        }
        return String.format("w%019dc%03dn%03d", sequence, index, count);
    }

    /** The cut a block id names, or empty for ids that are not cut ids (other writers' blocks). */
    public static Optional<Chunk> parse(String id) {
        Matcher m = ID.matcher(id);
        if (!m.matches()) {
            return Optional.empty();
        }
        int index = Integer.parseInt(m.group(2));
        int count = Integer.parseInt(m.group(3));
        return index < count ? Optional.of(new Chunk(Long.parseLong(m.group(1)), index, count)) : Optional.empty();
    }
}
