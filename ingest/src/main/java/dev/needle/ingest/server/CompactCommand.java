package dev.needle.ingest.server;

import dev.needle.blocks.cli.DataDirectory;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.IngestPipeline;
import dev.needle.ingest.wal.WriteAheadLog;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code needle compact}: one {@link Compactor} pass over a data directory (or its bucket) while no
 * server runs on it, then, after the grace, the deletion of the blocks it replaced. It takes the data
 * directory's lock, as a server does, so it refuses to run beside one (a server compacts by itself).
 */
@Command(name = "compact", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {"Merge runs of adjacent small blocks of each tenant and signal into blocks of up to --block-rows "
                + "rows, once, and print what was merged. A block written by it names the blocks it replaces, which "
                + "queries skip at once and which are deleted after the grace. Refuses to run while a server holds "
                + "the data directory: `needle serve` compacts in the background by itself."})
public final class CompactCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--data", paramLabel = "DIR", description = "the data directory: blocks (unless --store) and the "
            + "write-ahead log (default: ${DEFAULT-VALUE})", defaultValue = "data")
    private Path data;

    @Option(names = "--store", paramLabel = "s3://BUCKET/PREFIX", description = "the bucket that holds the blocks, as "
            + "serve's --store")
    private String store;

    @Option(names = "--s3-endpoint", paramLabel = "URL", description = "the S3-compatible service's URL; default: AWS S3")
    private URI s3Endpoint;

    @Option(names = "--s3-path-style", description = "address the bucket in the URL's path")
    private boolean s3PathStyle;

    @Option(names = "--block-rows", paramLabel = "N", description = "most rows in a block written; blocks of at most half "
            + "as many are merged (default: ${DEFAULT-VALUE})")
    private int blockRows = IngestLimits.DEFAULTS.blockRows();

    @Option(names = "--compression", paramLabel = "none|zstd", converter = ServeCommand.CompressionConverter.class,
            description = "how the blocks written are compressed (default: zstd with --store, none on a local data "
                    + "directory, as serve)")
    private BlockWriter.Codec compression;

    @Option(names = "--grace", paramLabel = "DURATION", converter = ServeCommand.DurationConverter.class,
            description = "wait this long before deleting replaced blocks, so that query nodes reading the index "
                    + "have moved on (default: 3s)")
    private Duration grace = Compactor.DEFAULT_GRACE;

    @Option(names = "--dry-run", description = "print what would be merged; change nothing")
    private boolean dryRun;

    /** The command line, whose unexpected failures print one line, not a stack trace. */
    static CommandLine commandLine() {
        return OneLineFailure.commandLine(new CompactCommand());
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ServerConfig config;
        try {
            config = ServerConfig.DEFAULTS.withData(data)
                    .withS3(store == null ? null : S3Location.parse(store, s3Endpoint, s3PathStyle))
                    .withCompression(compression);
            DataDirectory.requireReadable(data);
        } catch (IllegalArgumentException e) {
            err.println("needle compact: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        Path dir = data.toAbsolutePath().normalize();
        try (DataDirectoryLock lock = DataDirectoryLock.acquire(dir,
                "or leave the compacting to it: a server compacts by itself (--compact-every)")) {
            BlockStore blocks = config.storage().s3() == null ? new FsBlockStore(dir)
                    : S3BlockStore.open(config.storage().s3(), dir.resolve(NeedleServer.S3_STAGING_DIR));
            try {
                return compact(blocks, writerId(dir), dir.resolve(FsBlockStore.WAL_DIR),
                        BlockWriter.Options.DEFAULT.withCodec(config.storage().effectiveCompression()), out, err);
            } finally {
                if (blocks instanceof S3BlockStore s3) {
                    s3.close();
                }
            }
        } catch (IOException e) {
            err.println("needle compact: " + e.getMessage());
            return 1;
        }
    }

    private int compact(BlockStore blocks, String writerId, Path wal, BlockWriter.Options writer, PrintWriter out,
                        PrintWriter err) throws IOException, InterruptedException {
        // Blocks of cuts past the log's checkpoint are left to the server's recovery; on a shared bucket an
        // ingest node's directory compacts that node's blocks only.
        boolean othersToo = store == null || writerId.isEmpty();
        long checkpoint = WriteAheadLog.readCheckpoint(wal);
        Compactor.Options options = new Compactor.Options(blockRows, writer, grace, writerId,
                IngestPipeline.compactable(writerId, () -> checkpoint, othersToo));
        try (Compactor compactor = new Compactor(blocks, options)) {
            long started = System.nanoTime();
            Compactor.Pass pass = compactor.run(dryRun);
            double seconds = (System.nanoTime() - started) / 1e9;
            print(pass, out);
            long rows = pass.merges().stream().mapToLong(Compactor.Merge::rows).sum();
            long inputs = pass.merges().stream().mapToLong(m -> m.inputs().size()).sum();
            if (dryRun) {
                out.printf("dry run: %d %s (%d %s) would be merged into %d%n", inputs, Units.plural(inputs, "block"), rows,
                        Units.plural(rows, "row"), pass.merges().size());
                out.flush();
                return 0;
            }
            out.printf("merged %d %s (%d %s) into %d in %.1f s: %.0f rows/s%n", inputs, Units.plural(inputs, "block"), rows,
                    Units.plural(rows, "row"), pass.merges().size(),
                    seconds, seconds > 0 ? rows / seconds : 0);
            out.flush();
            if (compactor.deletionsDue()) {
                err.printf("needle compact: deleting the replaced blocks after the grace (%s)%n", Units.formatDuration(grace));
                err.flush();
                Thread.sleep(grace.toMillis());
                int deleted = compactor.deleteDue().size();
                out.printf("deleted %d replaced %s%n", deleted, Units.plural(deleted, "block"));
            }
            for (Compactor.SignalState s : compactor.signals()) {
                out.printf("%s/%s: %d %s%n", s.tenant().value(), s.signal().dirName(), s.blocks(),
                        Units.plural(s.blocks(), "block"));
            }
            out.flush();
        }
        return 0;
    }

    private static void print(Compactor.Pass pass, PrintWriter out) {
        String format = "%-20s %-6s %7s %10s %12s %12s  %s%n";
        out.printf(format, "TENANT", "SIGNAL", "BLOCKS", "ROWS", "BYTES_READ", "BYTES_WRITTEN", "INTO");
        for (Compactor.Merge m : pass.merges()) {
            out.printf(format, m.tenant().value(), m.signal().dirName(), m.inputs().size(), m.rows(), m.bytesRead(),
                    m.bytesWritten(), m.output() == null ? "-" : m.output());
        }
    }

    /** The id in {@code <data>/wal/writer}, or "" when there is none (the store's one writer). */
    private static String writerId(Path data) throws IOException {
        Path file = data.resolve(WriterId.FILE);
        return Files.exists(file) ? Files.readString(file, StandardCharsets.US_ASCII).strip() : "";
    }
}
