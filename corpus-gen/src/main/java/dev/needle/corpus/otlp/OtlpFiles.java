package dev.needle.corpus.otlp;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.corpus.otlp.BatchQueue.Batch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes batches of spans or log records as OTLP export request files, one request per file:
 * {@code <dir>/traces/000000.binpb}, {@code 000001.binpb}, … (an ExportTraceServiceRequest's
 * protobuf bytes) or {@code .json} (OTLP/JSON), and {@code <dir>/logs/…} likewise. Such a file
 * is what {@code curl --data-binary @000000.binpb -H 'Content-Type: application/x-protobuf'
 * http://localhost:4318/v1/traces} sends.
 *
 * <p>File {@code N} holds the iterator's {@code N}-th non-empty batch (numbers have six digits,
 * more past 999,999), whatever thread encoded it, and the same batches give the same bytes, so
 * a corpus is reproducible file for file. Each file is written under a temporary name
 * ({@code .000042.binpb.tmp}), fsynced and renamed: a run that crashes leaves whole files and
 * temporary ones, never a partial file under a final name. A directory that already holds
 * request files is refused rather than mixed with a new run; leftover temporary files are removed.
 */
public final class OtlpFiles {

    private static final Pattern REQUEST_FILE = Pattern.compile("\\d{6,}\\.(binpb|json)");
    private static final Pattern TEMP_FILE = Pattern.compile("\\.\\d{6,}\\.(binpb|json)\\.tmp");
    private static final boolean WINDOWS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    private final Path dir;
    private final OtlpEncoding encoding;
    private final int threads;

    /** Files under {@code dir} in {@code encoding}, encoded and written by {@code threads} threads. */
    public OtlpFiles(Path dir, OtlpEncoding encoding, int threads) {
        this.dir = Objects.requireNonNull(dir, "dir");
        this.encoding = Objects.requireNonNull(encoding, "encoding");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.threads = threads;
    }

    /**
     * Writes each batch of spans as one file under {@code <dir>/traces}. {@code recordsDone} is
     * told the size of every batch once its file is in place, one call at a time.
     *
     * @throws FileAlreadyExistsException when {@code <dir>/traces} already holds request files
     * @throws InterruptedException       when the calling thread is interrupted; the writers are stopped first
     */
    public FilesReport writeSpans(Iterator<? extends List<SpanRecord>> batches, LongConsumer recordsDone)
            throws IOException, InterruptedException {
        return write(OtlpSignal.SPANS, batches, recordsDone);
    }

    /** Like {@link #writeSpans}, for log records, under {@code <dir>/logs}. */
    public FilesReport writeLogs(Iterator<? extends List<LogRecord>> batches, LongConsumer recordsDone)
            throws IOException, InterruptedException {
        return write(OtlpSignal.LOGS, batches, recordsDone);
    }

    /** The name of request file number {@code index} in {@code encoding}, such as {@code 000042.binpb}. */
    public static String fileName(long index, OtlpEncoding encoding) {
        if (index < 0) {
            throw new IllegalArgumentException("a file number is not negative, got " + index);
        }
        return String.format(Locale.ROOT, "%06d.%s", index, encoding.fileExtension());
    }

    private <T> FilesReport write(OtlpSignal<T> signal, Iterator<? extends List<T>> batches, LongConsumer recordsDone)
            throws IOException, InterruptedException {
        Objects.requireNonNull(recordsDone, "recordsDone");
        Path out = dir.resolve(signal.dir());
        Files.createDirectories(out);
        prepare(out);
        long started = System.nanoTime();
        BatchQueue<T> queue = new BatchQueue<>(batches);
        LongAdder files = new LongAdder();
        LongAdder records = new LongAdder();
        LongAdder bytes = new LongAdder();
        Object recordsDoneLock = new Object();
        Workers.run("otlp-files-" + signal.name(), threads, queue::stop, () -> {
            ByteSink body = new ByteSink();
            for (Batch<T> batch = queue.take(); batch != null; batch = queue.take()) {
                body.reset();
                signal.encode(encoding, batch.records(), body);
                writeAtomically(out, fileName(batch.index(), encoding), body);
                files.increment();
                records.add(batch.records().size());
                bytes.add(body.size());
                synchronized (recordsDoneLock) {
                    recordsDone.accept(batch.records().size());
                }
            }
        });
        syncDirectory(out);
        return new FilesReport(signal.name(), out, encoding, files.sum(), records.sum(), bytes.sum(),
                (System.nanoTime() - started) / 1e9);
    }

    /** Removes the temporary files a crashed run left, and refuses a directory that holds request files. */
    private static void prepare(Path out) throws IOException {
        List<Path> earlier = new ArrayList<>();
        try (Stream<Path> entries = Files.list(out)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String name = p.getFileName().toString();
                if (TEMP_FILE.matcher(name).matches()) {
                    Files.deleteIfExists(p);
                } else if (REQUEST_FILE.matcher(name).matches()) {
                    earlier.add(p);
                }
            }
        }
        if (!earlier.isEmpty()) {
            throw new FileAlreadyExistsException(out.toString(), null, "holds " + earlier.size()
                    + " request files from an earlier run (such as " + earlier.get(0).getFileName()
                    + "); write into an empty directory or delete them first");
        }
    }

    /** Writes the body under a temporary name, fsyncs it and renames it to {@code name}. */
    private static void writeAtomically(Path out, String name, ByteSink body) throws IOException {
        Path tmp = out.resolve("." + name + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(body.array(), 0, body.size());
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            // Before the rename: otherwise a power cut could leave the final name on an empty file.
            ch.force(false);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        Files.move(tmp, out.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** Makes the renames durable. Windows cannot open a directory to sync it, and needs no such step. */
    private static void syncDirectory(Path out) throws IOException {
        if (WINDOWS) {
            return;
        }
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
