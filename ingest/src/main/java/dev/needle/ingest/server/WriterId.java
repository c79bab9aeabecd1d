package dev.needle.ingest.server;

import dev.needle.blocks.store.BlockName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The name an ingest node gives its blocks (after {@code o} in their ids, see
 * {@code ingest/head/CutIds}), so that ingest nodes sharing a bucket never publish under one name and
 * never take each other's blocks for their own when they recover. Chosen at random at a node's first
 * start and kept in {@code <data>/wal/writer}, beside the write-ahead log whose sequences the block
 * names carry: the id belongs to that log. A log begun without one (a data directory first served by
 * an {@code all} process) keeps its unnamed blocks, "", so that its recovery still finds them.
 */
final class WriterId {

    /** Inside the log's directory, as the lock is. */
    static final String FILE = "wal/writer";

    private static final Pattern ID = Pattern.compile("[0-9a-z]{1,16}");
    /** 50 random bits: two nodes of one bucket draw the same id with odds of one in 10^15. */
    private static final int LENGTH = 10;

    private WriterId() {
    }

    /**
     * The id kept in {@code data}, made and written (then the directory fsynced) on first use; "" for
     * a log begun without one.
     *
     * @throws IOException when the file cannot be written, or holds something that is no id
     */
    static String of(Path data) throws IOException {
        Path file = data.resolve(FILE);
        if (Files.exists(file)) {
            String id = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (!ID.matcher(id).matches()) {
                throw new IOException(file + " does not hold a writer id (up to 16 of [0-9a-z]): restore it, or "
                        + "remove it together with the write-ahead log");
            }
            return id;
        }
        if (hasLog(file.getParent())) {
            return "";
        }
        String id = BlockName.newId().substring(0, LENGTH);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling("writer.tmp");
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            out.write(ByteBuffer.wrap((id + "\n").getBytes(StandardCharsets.US_ASCII)));
            out.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
        return id;
    }

    /** Whether the log's directory holds a checkpoint or a segment, so that blocks may already name the log's cuts. */
    private static boolean hasLog(Path walDir) throws IOException {
        if (!Files.isDirectory(walDir)) {
            return false;
        }
        try (Stream<Path> files = Files.list(walDir)) {
            return files.map(f -> f.getFileName().toString()).anyMatch(n -> n.equals("checkpoint") || n.endsWith(".wal"));
        }
    }
}
