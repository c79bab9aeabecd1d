package dev.needle.ingest.wal;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log: entries are appended by one writer thread that writes every waiting entry,
 * fsyncs once for all of them (group commit), hands them to a listener in sequence order, and
 * only then completes their futures, so that a request is acknowledged only once its records are
 * on disk and in the head.
 *
 * <p>A checkpoint file says up to which sequence everything is in published blocks; segments
 * wholly below it are deleted. Opening the log cuts a torn tail off the last segment and returns
 * the entries past the checkpoint for replay.
 *
 * @param <A> what appenders pass along with their entries to the {@link Listener}
 */
public final class WriteAheadLog<A> implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    private static final String CHECKPOINT = "checkpoint";
    private static final String SUFFIX = ".wal";
    /** Where damaged segments are copied before recovery cuts them: {@code <data>/wal/damaged/}. */
    public static final String DAMAGED = FsBlockStore.DAMAGED_WAL_DIR;

    /**
     * Receives entries once they are durable, in sequence order, on the writer thread.
     *
     * @param <A> what appenders pass along with their entries
     */
    public interface Listener<A> {
        /**
         * {@code entries} are fsynced; their appenders have not been answered yet.
         * {@code attachments} are what each appender passed along with its entry.
         */
        void durable(List<WalEntry> entries, List<A> attachments);
    }

    /**
     * The log, the entries past its checkpoint that the head must replay, and what damage recovery
     * found and dropped (empty when none), one line a damaged segment.
     */
    public record Recovery<A>(WriteAheadLog<A> log, List<WalEntry> entries, List<String> problems) {
    }

    private record Pending<A>(Signal signal, TenantId tenant, byte[] payload, int length, A attachment,
                              CompletableFuture<WalEntry> done) {
    }

    private final Path dir;
    private final long segmentBytes;
    private final long maxPendingBytes;
    private final Listener<A> listener;
    private final LongConsumer fsyncNanos;
    private final BlockingQueue<Pending<A>> queue = new LinkedBlockingQueue<>();
    private final AtomicLong pendingBytes = new AtomicLong();
    /** First sequence of each segment file, and the file; the last one is being written. */
    private final TreeMap<Long, Path> segments = new TreeMap<>();
    private final Thread writer;
    private final Object lock = new Object();
    private FileChannel active;
    private long activeSize;
    private long lastSequence;
    private long checkpoint;
    private volatile boolean running = true;
    /** Set under {@link #queue}'s lock by {@link #close}: no entry is queued after the writer's last drain. */
    private boolean closed;
    private volatile IOException broken;

    private WriteAheadLog(Path dir, long segmentBytes, long maxPendingBytes, Listener<A> listener, LongConsumer fsyncNanos,
                          long lastSequence, long checkpoint) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.maxPendingBytes = maxPendingBytes;
        this.listener = listener;
        this.fsyncNanos = fsyncNanos;
        this.lastSequence = lastSequence;
        this.checkpoint = checkpoint;
        this.writer = new Thread(this::writeLoop, "needle-wal");
    }

    /**
     * Opens (or creates) the log in {@code dir}: reads the checkpoint, reads every segment, cuts a
     * torn tail, and returns the entries past the checkpoint. Appends start after the last entry.
     */
    public static <A> Recovery<A> open(Path dir, long segmentBytes, long maxPendingBytes, Listener<A> listener,
                                       LongConsumer fsyncNanos) throws IOException {
        Files.createDirectories(dir);
        long checkpoint = readCheckpoint(dir);
        List<WalEntry> replay = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TreeMap<Long, Path> found = new TreeMap<>();
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(SUFFIX) && name.length() == 20 + SUFFIX.length()) {
                    found.put(Long.parseLong(name.substring(0, 20)), f);
                }
            }
        }
        long last = checkpoint;
        for (var e : found.entrySet()) {
            WalSegmentFormat.Contents contents;
            try (FileChannel ch = FileChannel.open(e.getValue(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                contents = WalSegmentFormat.read(ch);
                if (contents.problem() != null) {
                    boolean tail = e.getKey().equals(found.lastKey());
                    String what = e.getValue().getFileName() + ": " + contents.problem();
                    if (tail) {
                        LOG.info("write-ahead log: cutting a torn tail off {} ({} bytes kept)", what, contents.validBytes());
                    } else {
                        // Not a write cut short by a crash: acknowledged entries were damaged on disk.
                        Path copy = keepDamaged(dir, e.getValue());
                        String dropped = what + "; " + (ch.size() - contents.validBytes()) + " bytes after "
                                + contents.validBytes() + " dropped, the whole segment kept in " + dir.relativize(copy);
                        LOG.error("write-ahead log: {}; every entry before the damage and every later segment is replayed",
                                dropped);
                        problems.add(dropped);
                    }
                    ch.truncate(Math.max(contents.validBytes(), WalSegmentFormat.HEADER_BYTES));
                    if (contents.validBytes() < WalSegmentFormat.HEADER_BYTES) {
                        ch.write(WalSegmentFormat.header(), 0);
                    }
                    ch.force(true);
                }
            }
            for (WalEntry entry : contents.entries()) {
                last = Math.max(last, entry.sequence());
                if (entry.sequence() > checkpoint) {
                    replay.add(entry);
                }
            }
        }
        WriteAheadLog<A> log = new WriteAheadLog<>(dir, segmentBytes, maxPendingBytes, listener, fsyncNanos, last, checkpoint);
        log.segments.putAll(found);
        log.startSegment(last + 1);
        log.writer.setDaemon(true);
        log.writer.start();
        return new Recovery<>(log, replay, problems);
    }

    /** Copies a damaged segment into {@code damaged/} before it is cut, for whoever wants to look at it. */
    private static Path keepDamaged(Path dir, Path segment) throws IOException {
        Path copy = dir.resolve(DAMAGED).resolve(segment.getFileName());
        Files.createDirectories(copy.getParent());
        if (!Files.exists(copy)) {
            Files.copy(segment, copy);
        }
        return copy;
    }

    /**
     * Why the log refuses every entry from now on (its writer failed in a way a next batch cannot mend,
     * such as running out of memory), or null while it works. Only a restart, which replays the log, mends it.
     */
    public IOException broken() {
        return broken;
    }

    /**
     * Queues one entry of the first {@code length} bytes of {@code payload}; the future completes once
     * it is fsynced and handed to the listener with {@code attachment} (the decoded records, so that
     * nobody decodes the payload again). The log reads the payload until then, and not after: only once
     * the future completed may the caller use the array again. After {@link #close} it is failed at once.
     *
     * @throws WalFullException when the entries waiting for fsync already hold too many bytes
     */
    public CompletableFuture<WalEntry> append(Signal signal, TenantId tenant, byte[] payload, int length, A attachment)
            throws WalFullException {
        Objects.checkFromIndexSize(0, length, payload.length);
        if (broken != null) {
            throw new WalFullException("the write-ahead log cannot be written: " + broken.getMessage());
        }
        long now = pendingBytes.addAndGet(length);
        if (now > maxPendingBytes && now != length) {
            pendingBytes.addAndGet(-length);
            throw new WalFullException("the write-ahead log has " + (now - length)
                    + " bytes waiting for fsync, above its bound of " + maxPendingBytes);
        }
        CompletableFuture<WalEntry> done = new CompletableFuture<>();
        synchronized (queue) {
            if (closed) {
                pendingBytes.addAndGet(-length);
                return CompletableFuture.failedFuture(new IOException("the write-ahead log is closed"));
            }
            queue.add(new Pending<>(signal, tenant, payload, length, attachment, done));
        }
        return done;
    }

    private void writeLoop() {
        List<Pending<A>> batch = new ArrayList<>();
        while (running || !queue.isEmpty()) {
            try {
                Pending<A> first = queue.poll(50, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch);
                List<WalEntry> entries = write(batch);
                listener.durable(entries, batch.stream().map(Pending::attachment).toList());
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).done().complete(entries.get(i));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException e) {
                // A full disk or an I/O error: the batch was cut off the log again (see abandon), nobody
                // was answered yes, and the next batch tries afresh, so ingest resumes once space is free.
                LOG.warn("write-ahead log: writing {} entries failed, refusing them: {}", batch.size(), e.toString());
                batch.forEach(p -> p.done().completeExceptionally(e));
            } catch (RuntimeException | Error e) {
                // Even an Error (out of memory) must fail the waiting appenders and refuse new ones:
                // a dead writer thread with live futures would hang every request forever.
                IOException failure = new IOException(e);
                broken = failure;
                LOG.error("write-ahead log: writing failed; refusing new data from now on", failure);
                batch.forEach(p -> p.done().completeExceptionally(failure));
            } finally {
                batch.forEach(p -> pendingBytes.addAndGet(-p.length()));
                batch.clear();
            }
        }
    }

    private List<WalEntry> write(List<Pending<A>> batch) throws IOException {
        synchronized (lock) {
            long sequenceBefore = lastSequence;
            long segmentBefore = segments.lastKey();
            long sizeBefore = active != null ? activeSize : Files.size(segments.get(segmentBefore));
            try {
                return writeAndSync(batch);
            } catch (IOException e) {
                abandon(sequenceBefore, segmentBefore, sizeBefore);
                throw e;
            }
        }
    }

    private List<WalEntry> writeAndSync(List<Pending<A>> batch) throws IOException {
        if (active == null) {
            startSegment(lastSequence + 1);
        }
        List<WalEntry> entries = new ArrayList<>(batch.size());
        for (Pending<A> p : batch) {
            if (activeSize >= segmentBytes) {
                active.force(false);
                startSegment(lastSequence + 1);
            }
            WalEntry entry = new WalEntry(lastSequence + 1, p.signal(), p.tenant(), p.payload(), p.length());
            ByteBuffer[] bytes = WalSegmentFormat.encode(entry);
            ByteBuffer last = bytes[bytes.length - 1];
            while (last.hasRemaining()) {
                activeSize += active.write(bytes);
            }
            lastSequence = entry.sequence();
            entries.add(entry);
        }
        long start = System.nanoTime();
        active.force(false);
        fsyncNanos.accept(System.nanoTime() - start);
        return entries;
    }

    /**
     * Cuts a batch that failed to be written off the log: segments it started are deleted, the one
     * it began in is truncated to where it began, and the next batch starts a new segment (after a
     * failed write or fsync the file's cached pages cannot be trusted). Nothing of the batch was
     * acknowledged, so nothing acknowledged is lost; if the truncation fails too, recovery reports
     * that segment's unreadable tail and keeps every entry before it.
     */
    private void abandon(long sequenceBefore, long segmentBefore, long sizeBefore) {
        lastSequence = sequenceBefore;
        try {
            active.close();
        } catch (IOException e) {
            LOG.debug("closing a failed write-ahead log segment", e);
        }
        active = null;
        activeSize = 0;
        for (Long first : new ArrayList<>(segments.tailMap(segmentBefore, false).keySet())) {
            try {
                Files.deleteIfExists(segments.remove(first));
            } catch (IOException e) {
                LOG.warn("write-ahead log: could not delete {}, started by a failed write: {}", first, e.toString());
            }
        }
        try (FileChannel ch = FileChannel.open(segments.get(segmentBefore), StandardOpenOption.WRITE)) {
            ch.truncate(sizeBefore);
            ch.force(true);
        } catch (IOException e) {
            LOG.warn("write-ahead log: could not cut a failed write off {}: {}", segments.get(segmentBefore), e.toString());
        }
    }

    private void startSegment(long firstSequence) throws IOException {
        if (active != null) {
            active.close();
        }
        Path file = dir.resolve(String.format("%020d%s", firstSequence, SUFFIX));
        active = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        if (active.size() == 0) {
            active.write(WalSegmentFormat.header());
            active.force(true);
            fsyncDir(dir);
        }
        activeSize = active.size();
        segments.put(firstSequence, file);
    }

    /** The sequence of the last entry written. */
    public long lastSequence() {
        synchronized (lock) {
            return lastSequence;
        }
    }

    /** The sequence up to which every entry is in published blocks. */
    public long checkpoint() {
        synchronized (lock) {
            return checkpoint;
        }
    }

    /** Bytes of entries waiting for fsync. */
    public long pendingBytes() {
        return pendingBytes.get();
    }

    /** Bytes of segment files on disk. */
    public long bytesOnDisk() throws IOException {
        synchronized (lock) {
            long total = 0;
            for (Path p : segments.values()) {
                total += Files.size(p);
            }
            return total;
        }
    }

    /**
     * Records durably that every entry up to {@code sequence} is in published blocks, then deletes
     * the segments that hold nothing newer.
     */
    public void checkpoint(long sequence) throws IOException {
        synchronized (lock) {
            if (sequence <= checkpoint) {
                return;
            }
            Path tmp = dir.resolve(CHECKPOINT + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap(("needle-wal-checkpoint 1 " + sequence + "\n").getBytes(StandardCharsets.US_ASCII)));
                ch.force(true);
            }
            try {
                Files.move(tmp, dir.resolve(CHECKPOINT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the write-ahead log's filesystem cannot rename atomically", e);
            }
            fsyncDir(dir);
            checkpoint = sequence;
            if (active != null && lastSequence <= sequence && activeSize > WalSegmentFormat.HEADER_BYTES) {
                active.force(false);
                startSegment(lastSequence + 1);
            }
            // A segment ends where the next begins: delete those whose last entry is covered.
            List<Long> firsts = new ArrayList<>(segments.keySet());
            for (int i = 0; i + 1 < firsts.size(); i++) {
                if (firsts.get(i + 1) - 1 <= sequence) {
                    Files.deleteIfExists(segments.remove(firsts.get(i)));
                }
            }
            fsyncDir(dir);
        }
    }

    /**
     * The checkpoint of the log in {@code dir}, or 0 when there is none or it cannot be read: replaying
     * from the start is safe, because the head skips entries whose blocks are already published (see
     * their ids).
     */
    public static long readCheckpoint(Path dir) throws IOException {
        String text;
        try {
            text = Files.readString(dir.resolve(CHECKPOINT), StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return 0;
        }
        String[] parts = text.split(" ");
        try {
            if (parts.length == 3 && parts[0].equals("needle-wal-checkpoint") && parts[1].equals("1")) {
                return Long.parseLong(parts[2]);
            }
        } catch (NumberFormatException e) {
            // Reported below like any other unreadable checkpoint.
        }
        LOG.error("write-ahead log: the checkpoint file is unreadable ('{}'); replaying every segment", text);
        return 0;
    }

    private static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Writes what is queued, then stops the writer thread and closes the active segment. */
    @Override
    public void close() throws IOException {
        synchronized (queue) {
            closed = true;
        }
        running = false;
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lock) {
            if (active != null) {
                active.force(false);
                active.close();
            }
        }
    }
}
