package dev.needle.ingest.server;

import dev.needle.blocks.cli.DataDirectory;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.ingest.IngestLimits;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code needle serve}: runs the {@link NeedleServer} until SIGTERM or SIGINT; the main class of
 * {@code ingest-VERSION-cli.jar}. Once serving it prints one line to standard output,
 * {@code needle: ready otlp=HOST:PORT query=HOST:PORT}, with the actual ports (useful with port 0);
 * everything else it says goes to standard error.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        defaultValueProvider = ServeCommand.Defaults.class,
        description = {
            "Run needle: receive OpenTelemetry spans and logs over OTLP/HTTP (protobuf or JSON, gzip or not), "
                    + "keep them in blocks under the data directory, and serve the query API with /ready and /metrics. "
                    + "A request is acknowledged once its records are fsynced in the write-ahead log; they are "
                    + "queryable at once.",
            "",
            "SIGTERM or Ctrl-C stops gracefully: the head is published, the write-ahead log checkpointed, "
                    + "and the exit status is 0.",
            "",
            "On more than one machine: --role ingest nodes take OTLP and publish to a shared --store; any number of "
                    + "--role query nodes read it, each given the ingest nodes with --ingester URL, so that what an "
                    + "ingest node acknowledged is answered by every query node at once.",
            ""},
        footer = {"", "SIZE is 1048576, 64KiB, 256MiB or 1GiB (powers of 1024), or 64KB, 500MB or 10GB (powers of 1000);"
                + " DURATION is 500ms, 30s, 2m, 6h or 7d."})
public final class ServeCommand implements Callable<Integer> {

    /** The exit status when ingest stopped for good or a thread died: a supervisor should restart the process. */
    static final int EXIT_FAILED = 70;

    @Spec
    private CommandSpec spec;

    @Option(names = "--role", paramLabel = "all|ingest|query", converter = RoleConverter.class,
            description = "all: ingest and query in one process; ingest: OTLP, write-ahead log, publishing, and the "
                    + "head for query nodes; query: the query API over the store, nothing written (default: ${DEFAULT-VALUE})")
    private Role role;

    @Option(names = "--ingester", paramLabel = "URL",
            description = "with --role query: an ingest node's query port (http://HOST:3200), asked for the records it has "
                    + "not published yet; repeat for each ingest node")
    private List<URI> ingesters = new ArrayList<>();

    @Option(names = "--data", paramLabel = "DIR", description = "data directory: blocks (unless --store) and the write-ahead log; "
            + "with --role query, the blocks to read (default: ${DEFAULT-VALUE})")
    private Path data;

    @Option(names = "--otlp-port", paramLabel = "PORT", description = "OTLP/HTTP port; 0 picks a free one (default: ${DEFAULT-VALUE})")
    private int otlpPort;

    @Option(names = "--query-port", paramLabel = "PORT", description = "query API, /ready and /metrics; 0 picks a free one (default: ${DEFAULT-VALUE})")
    private int queryPort;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "address both ports bind; 0.0.0.0 for every interface (default: ${DEFAULT-VALUE})")
    private String bind;

    @Option(names = "--block-rows", paramLabel = "N", description = "most rows in one block; a larger cut writes several (default: ${DEFAULT-VALUE})")
    private int blockRows;

    @Option(names = "--cut-rows", paramLabel = "N", description = "cut the head into blocks once it holds this many records (default: ${DEFAULT-VALUE})")
    private long cutRows;

    @Option(names = "--cut-bytes", paramLabel = "SIZE", converter = BytesConverter.class,
            description = "... or once its records take this many write-ahead log bytes (default: ${DEFAULT-VALUE})")
    private long cutBytes;

    @Option(names = "--cut-age", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "... or once its oldest record is this old (default: ${DEFAULT-VALUE})")
    private Duration cutAge;

    @Option(names = "--max-head-bytes", paramLabel = "SIZE", converter = BytesConverter.class,
            description = "answer 429 while the head holds more than this (default: ${DEFAULT-VALUE})")
    private long maxHeadBytes;

    @Option(names = "--max-head-wait", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "... after a request has waited this long for the publisher to make room (default: ${DEFAULT-VALUE})")
    private Duration maxHeadWait;

    @Option(names = "--max-wal-pending-bytes", paramLabel = "SIZE", converter = BytesConverter.class,
            description = "answer 503 while more than this waits for fsync (default: ${DEFAULT-VALUE})")
    private long maxWalPendingBytes;

    @Option(names = "--max-request-bytes", paramLabel = "SIZE", converter = BytesConverter.class,
            description = "largest OTLP request body, after decompression; larger is 413 (default: ${DEFAULT-VALUE})")
    private long maxRequestBytes;

    @Option(names = "--retention", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "delete blocks whose every record is older than this, checked every minute (default: keep everything)")
    private Duration retention;

    @Option(names = "--compact-every", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "merge small blocks into blocks of up to --block-rows rows this often, in the background "
                    + "(default: ${DEFAULT-VALUE})")
    private Duration compactEvery;

    @Option(names = "--compact-grace", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "how long blocks a compaction replaced stay before they are deleted, so that every query "
                    + "node's index (read every second) has moved on (default: ${DEFAULT-VALUE})")
    private Duration compactGrace;

    @Option(names = "--no-compact", description = "do not compact: every published block stays as it is")
    private boolean noCompact;

    @Option(names = "--compression", paramLabel = "none|zstd", converter = CompressionConverter.class,
            description = "how published blocks' record batches are compressed (default: zstd with --store, none on "
                    + "a local data directory)")
    private BlockWriter.Codec compression;

    @Option(names = "--query-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "stop a query that runs longer than this, with a 503 that says so (default: ${DEFAULT-VALUE})")
    private Duration queryTimeout;

    @Option(names = "--max-query-bytes", paramLabel = "SIZE", converter = BytesConverter.class,
            description = "heap one query's records may hold; a query that needs more stops with a 422 (default: half"
                    + " of the eighth of the heap all queries' records may hold)")
    private Long maxQueryBytes;

    @Option(names = "--store", paramLabel = "s3://BUCKET/PREFIX",
            description = "keep the blocks in this bucket instead of the data directory; credentials and region from "
                    + "the AWS SDK's chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, profiles)")
    private String store;

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "the S3-compatible service's URL (MinIO, Ceph, S3Proxy...); default: AWS S3")
    private URI s3Endpoint;

    @Option(names = "--s3-path-style", description = "address the bucket in the URL's path, as most S3-compatible services need")
    private boolean s3PathStyle;

    /** Runs {@code serve} with the given arguments, or {@code compact} with those after it; returns only if it could not start. */
    public static void main(String[] args) {
        configureLogging();
        // A thread of needle's that dies leaves part of the server dead while the rest answers: exit instead.
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            e.printStackTrace();
            exitForRestart("thread " + thread.getName() + " died (" + e + ")");
        });
        if (args.length > 0 && args[0].equals("compact")) {
            System.exit(CompactCommand.commandLine().execute(Arrays.copyOfRange(args, 1, args.length)));
        }
        System.exit(commandLine().execute(args));
    }

    /** The command line, whose unexpected failures print one line, not a stack trace. */
    static CommandLine commandLine() {
        return OneLineFailure.commandLine(new ServeCommand());
    }

    /**
     * One line per log message, without thread or logger names, on standard error; Jetty and Arrow
     * say only what is wrong. Set before any logger exists; a {@code -D} given by the user wins.
     */
    private static void configureLogging() {
        Map.of("org.slf4j.simpleLogger.showDateTime", "true",
                "org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS",
                "org.slf4j.simpleLogger.showThreadName", "false",
                "org.slf4j.simpleLogger.showLogName", "false",
                "org.slf4j.simpleLogger.log.org.eclipse.jetty", "warn",
                "org.slf4j.simpleLogger.log.org.apache.arrow", "warn",
                // The query handlers log through System.Logger, which is java.util.logging here.
                "java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %5$s%6$s%n")
                .forEach((key, value) -> {
                    if (System.getProperty(key) == null) {
                        System.setProperty(key, value);
                    }
                });
    }

    /** The server's settings as the options give them; an IllegalArgumentException says which do not go together. */
    ServerConfig config() {
        checkRoleOptions();
        if (store == null && (s3Endpoint != null || s3PathStyle)) {
            throw new IllegalArgumentException("--s3-endpoint and --s3-path-style go with --store s3://BUCKET/PREFIX");
        }
        return new ServerConfig(new ServerConfig.Storage(data,
                store == null ? null : S3Location.parse(store, s3Endpoint, s3PathStyle), compression, retention),
                new ServerConfig.Listen(bind, otlpPort, queryPort, maxRequestBytes),
                new IngestLimits(blockRows, cutRows, cutBytes, cutAge, maxHeadBytes, maxHeadWait, maxWalPendingBytes,
                        IngestLimits.DEFAULTS.walSegmentBytes()),
                new ServerConfig.Cluster(role, ingesters),
                new ServerConfig.CompactionSchedule(noCompact || role == Role.QUERY ? null : compactEvery, compactGrace),
                new ServerConfig.Queries(queryTimeout, maxQueryBytes));
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        ServerConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException e) {
            err.println("needle serve: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        NeedleServer server;
        try {
            if (role != Role.QUERY) {
                DataDirectory.createWritable(data);
            } else if (store == null) {
                DataDirectory.requireReadable(data);
            }
            server = NeedleServer.start(config);
        } catch (IllegalArgumentException e) {
            err.println("needle serve: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        } catch (IOException e) {
            err.println("needle serve: " + e.getMessage());
            return 1;
        }
        // Only now: a signal during recovery just ends the process, and the next start recovers again.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server), "needle-shutdown"));
        server.onIngestFailure(failure -> exitForRestart("ingest stopped for good (" + failure + ")"));
        System.out.println("needle: ready"
                + (server.otlpAddress() == null ? "" : " otlp=" + HttpPorts.hostPort(server.otlpAddress()))
                + " query=" + HttpPorts.hostPort(server.queryAddress())
                + (role == Role.ALL ? "" : " role=" + role.word()));
        System.out.flush();
        // Nothing more for this thread: the server runs on its own threads until a signal runs the hook.
        new CountDownLatch(1).await();
        return 0;
    }

    /** Refuses, naming them, the options the role has no use for; the defaults of those are never in the way. */
    private void checkRoleOptions() {
        List<String> unused = new ArrayList<>();
        List<String> forIngest = List.of("--otlp-port", "--block-rows", "--cut-rows", "--cut-bytes", "--cut-age",
                "--max-head-bytes", "--max-head-wait", "--max-wal-pending-bytes", "--max-request-bytes", "--retention", "--compression",
                "--compact-every", "--compact-grace", "--no-compact");
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (role == Role.QUERY) {
            forIngest.stream().filter(given::hasMatchedOption).forEach(unused::add);
            if (store != null && given.hasMatchedOption("--data")) {
                unused.add("--data (a query node on a bucket keeps nothing on disk)");
            }
        } else if (!ingesters.isEmpty()) {
            unused.add("--ingester (it tells a --role query node where to ask; this node queries its own head)");
        }
        if (role == Role.INGEST) {
            List.of("--query-timeout", "--max-query-bytes").stream().filter(given::hasMatchedOption).forEach(unused::add);
        }
        if (!unused.isEmpty()) {
            throw new IllegalArgumentException("--role " + role.word() + " has no use for " + String.join(", ", unused)
                    + (role == Role.QUERY ? ": a query node takes no OTLP, keeps no write-ahead log and writes nothing"
                    : role == Role.INGEST ? ": an ingest node answers no queries but query nodes' questions for its head" : ""));
        }
    }

    /**
     * Ends the process at once with {@link #EXIT_FAILED}, so that a supervisor restarts it and recovery
     * replays the write-ahead log: what remains of a process whose ingest stopped, or whose thread died,
     * could only answer 503 for ever. Nothing acknowledged is lost: it is in the log.
     */
    private static void exitForRestart(String why) {
        System.err.println("needle serve: " + why + "; exiting so that a restart replays the write-ahead log");
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_FAILED);
    }

    /**
     * The shutdown hook: a graceful close, then halt with 0 (1 if the head could not be published;
     * the write-ahead log still holds it for the next start). Halting is what makes a SIGTERM exit
     * 0: the JVM's own exit status after a signal is 128 + the signal's number.
     */
    private static void stop(NeedleServer server) {
        int status = 0;
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            System.err.println("needle serve: shutting down failed, the write-ahead log keeps what was not published: " + e);
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }

    /** Default values from {@link ServerConfig#DEFAULTS}, written as the options read them. */
    static final class Defaults implements CommandLine.IDefaultValueProvider {
        @Override
        public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
            if (!(argSpec instanceof OptionSpec option)) {
                return null;
            }
            ServerConfig d = ServerConfig.DEFAULTS;
            IngestLimits l = d.limits();
            return switch (option.longestName()) {
                case "--role" -> d.cluster().role().word();
                case "--data" -> d.storage().data().toString();
                case "--otlp-port" -> String.valueOf(d.listen().otlpPort());
                case "--query-port" -> String.valueOf(d.listen().queryPort());
                case "--bind" -> d.listen().bind();
                case "--block-rows" -> String.valueOf(l.blockRows());
                case "--cut-rows" -> String.valueOf(l.cutRows());
                case "--cut-bytes" -> Units.formatBytes(l.cutBytes());
                case "--cut-age" -> Units.formatDuration(l.cutAge());
                case "--max-head-bytes" -> Units.formatBytes(l.maxHeadBytes());
                case "--max-head-wait" -> Units.formatDuration(l.headWait());
                case "--max-wal-pending-bytes" -> Units.formatBytes(l.maxWalPendingBytes());
                case "--max-request-bytes" -> Units.formatBytes(d.listen().maxRequestBytes());
                case "--compact-every" -> Units.formatDuration(d.compaction().every());
                case "--compact-grace" -> Units.formatDuration(d.compaction().grace());
                case "--query-timeout" -> Units.formatDuration(d.queries().timeout());
                default -> null;
            };
        }
    }

    /** Reads {@code all}, {@code ingest} or {@code query}. */
    static final class RoleConverter implements CommandLine.ITypeConverter<Role> {
        @Override
        public Role convert(String value) {
            for (Role r : Role.values()) {
                if (r.word().equals(value.toLowerCase(Locale.ROOT))) {
                    return r;
                }
            }
            throw new CommandLine.TypeConversionException("expected all, ingest or query, got '" + value + "'");
        }
    }

    /** Reads {@code none} or {@code zstd}. */
    static final class CompressionConverter implements CommandLine.ITypeConverter<BlockWriter.Codec> {
        @Override
        public BlockWriter.Codec convert(String value) {
            for (BlockWriter.Codec c : BlockWriter.Codec.values()) {
                if (c.name().equalsIgnoreCase(value)) {
                    return c;
                }
            }
            throw new CommandLine.TypeConversionException("expected none or zstd, got '" + value + "'");
        }
    }

    /** Reads {@code 256MiB} and the like. */
    static final class BytesConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Units.bytes(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Reads {@code 2m} and the like. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Units.duration(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
