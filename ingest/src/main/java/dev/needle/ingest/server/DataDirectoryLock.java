package dev.needle.ingest.server;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The lock a server holds on its data directory for as long as it runs: a second server on the
 * same directory would replay the first one's live write-ahead log and delete segments it is still
 * writing. An OS file lock, so a crashed server's lock goes with its process. Read-only tools
 * ({@code inspect}, {@code query --data}) take no lock.
 */
final class DataDirectoryLock implements Closeable {

    /** Inside the log's directory: no tenant directory can be named like it. */
    static final String FILE = "wal/lock";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code data}, writing this process's id into the lock file.
     *
     * @param instead what the refused command may do instead, ending the refusal's message: "stop it first, " and this
     * @throws IOException naming the directory and the process holding it when another one does
     */
    static DataDirectoryLock acquire(Path data, String instead) throws IOException {
        Path file = data.resolve(FILE);
        Files.createDirectories(file.getParent());
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = tryLock(channel);
            if (lock == null) {
                throw new IOException(data + " is in use by another needle process (" + holder(file)
                        + " holds " + file + "); stop it first, " + instead);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(true);
            return new DataDirectoryLock(channel, lock);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The lock, or null when another process, or another server in this one, holds it. */
    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    /** What the lock file says of its holder, such as {@code pid 4711}. */
    private static String holder(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            return text.matches("pid \\d{1,19}") ? text : "a process";
        } catch (IOException e) {
            return "a process";
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
