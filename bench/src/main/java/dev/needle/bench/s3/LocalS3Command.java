package dev.needle.bench.s3;

import dev.needle.blocks.cli.DataDirectory;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.sidecar.cli.NeedleVersion;
import dev.needle.testkit.S3ProxyStarter;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code needle s3}: an S3-compatible server on this machine, for tests and first runs of needle on
 * object storage. S3Proxy over its filesystem store: every object is a file under {@code --dir}, so
 * what needle publishes survives a restart; requests are checked against one access key and secret,
 * as S3 checks them. It creates the bucket, prints the flags and credentials needle needs, and runs
 * until SIGTERM or Ctrl-C.
 */
@Command(name = "s3", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {
            "Run a local S3-compatible server (S3Proxy, objects as files under --dir) with one bucket, and print how to "
                    + "point needle at it. Not for production: one process, no replication.",
            ""})
public final class LocalS3Command implements Callable<Integer> {

    @Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", description = "the port; 0 picks a free one (default: ${DEFAULT-VALUE})")
    private int port = 9000;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "the address it binds (default: ${DEFAULT-VALUE})")
    private String bind = "127.0.0.1";

    @Option(names = "--dir", paramLabel = "DIR", description = "where the objects are kept, a directory per bucket (default: ${DEFAULT-VALUE})")
    private Path dir = Path.of("s3-data");

    @Option(names = "--bucket", paramLabel = "NAME", description = "the bucket to create if missing (default: ${DEFAULT-VALUE})")
    private String bucket = "needle";

    @Option(names = "--access-key", paramLabel = "KEY", description = "the access key requests must be signed with (default: ${DEFAULT-VALUE})")
    private String accessKey = "needle";

    @Option(names = "--secret-key", paramLabel = "SECRET", description = "its secret (default: ${DEFAULT-VALUE})")
    private String secretKey = "needle-secret";

    /** Runs the command; returns only if the server could not start. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new LocalS3Command()).setExecutionExceptionHandler(new OneLineFailure()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
            err.println("needle s3: --bucket: a bucket name is 3 to 63 lowercase letters, digits, '.' and '-', got '" + bucket + "'");
            return CommandLine.ExitCode.USAGE;
        }
        Path base;
        try {
            base = DataDirectory.createWritable(dir);
        } catch (IOException e) {
            err.println("needle s3: " + e.getMessage());
            return 1;
        }
        S3Proxy proxy;
        try {
            proxy = start(base, bind, port, bucket, accessKey, secretKey);
        } catch (Exception e) {
            err.println("needle s3: cannot serve on " + bind + ":" + port + ": " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(proxy), "needle-s3-shutdown"));
        String endpoint = "http://" + (bind.contains(":") ? "[" + bind + "]" : bind) + ":" + proxy.getPort();
        PrintWriter out = spec.commandLine().getOut();
        out.println("needle s3: serving " + endpoint + ", bucket '" + bucket + "', objects under " + base);
        out.println("export AWS_ACCESS_KEY_ID=" + accessKey + " AWS_SECRET_ACCESS_KEY=" + secretKey + " AWS_REGION=us-east-1");
        out.println("./needle serve --store s3://" + bucket + "/needle --s3-endpoint " + endpoint + " --s3-path-style");
        out.flush();
        new CountDownLatch(1).await();
        return 0;
    }

    /** S3Proxy over the filesystem store at {@code base}, serving on {@code bind:port}, with {@code bucket} created if missing. */
    static S3Proxy start(Path base, String bind, int port, String bucket, String accessKey, String secretKey)
            throws Exception {
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", base.toString());
        properties.setProperty("jclouds.identity", accessKey);
        properties.setProperty("jclouds.credential", secretKey);
        BlobStore blobs = BlobStores.create("filesystem", properties);
        if (!blobs.containerExists(bucket)) {
            blobs.createContainer(bucket);
        }
        return S3ProxyStarter.start(blobs, new URI("http", null, bind, port, null, null, null), accessKey, secretKey);
    }

    private static void stop(S3Proxy proxy) {
        try {
            proxy.stop();
        } catch (Exception e) {
            System.err.println("needle s3: stopping: " + e);
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
