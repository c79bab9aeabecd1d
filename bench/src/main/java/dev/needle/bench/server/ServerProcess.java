package dev.needle.bench.server;

import dev.needle.ingest.server.ServeCommand;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code needle serve} child process on one data directory, in its own JVM as in a deployment.
 * Its standard output and error go to a log file; closing it kills the process if it still runs,
 * and so does this JVM's exit while it runs.
 */
public final class ServerProcess implements AutoCloseable {

    /*
     * Ports are 0: the server binds free ones itself and prints them on its ready line, so there is
     * no window between choosing a free port and binding it in which another process could take it.
     */

    /** The line {@link ServeCommand} prints once both ports listen and recovery is done. */
    private static final Pattern READY = Pattern.compile("needle: ready otlp=(\\S+) query=(\\S+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Stopping publishes the head (up to one cut's worth of rows) and checkpoints the log. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(30);
    /** Short, because the time from start to ready is measured: reading a small log file this often costs nothing. */
    private static final long POLL_MILLIS = 2;
    private static final int LOG_TAIL_CHARS = 2000;

    private final Process process;
    private final Path log;
    private final Thread killOnExit;
    private final long startedNanos;
    private URI otlp;
    private URI query;
    private long startToReadyNanos;

    private ServerProcess(Process process, Path log, long startedNanos) {
        this.process = process;
        this.log = log;
        this.startedNanos = startedNanos;
        this.killOnExit = new Thread(process::destroyForcibly, "needle-bench-kill-server");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts {@code needle serve --data data} as {@code launch} says, with {@code jvmArgs}, writing
     * its output to {@code log}, and returns once {@code /ready} answers 200. Kills the process if it
     * does not get there.
     */
    public static ServerProcess start(JavaLaunch launch, List<String> jvmArgs, Path data, Path log)
            throws IOException, InterruptedException {
        List<String> command = launch.command(jvmArgs,
                List.of("--data", data.toString(), "--otlp-port", "0", "--query-port", "0"));
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        ServerProcess server = new ServerProcess(process, log, started);
        try {
            server.awaitReady();
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** The server's OTLP/HTTP base URL, such as {@code http://127.0.0.1:41234}. */
    public URI otlp() {
        return otlp;
    }

    /** The server's query API base URL, such as {@code http://127.0.0.1:41235}. */
    public URI query() {
        return query;
    }

    /** From starting the process to the first 200 from {@code /ready}, in nanoseconds. */
    public long startToReadyNanos() {
        return startToReadyNanos;
    }

    /** The child's process id, for progress lines. */
    public long pid() {
        return process.pid();
    }

    /**
     * Stops the server as an operator would, with SIGTERM, which publishes the head and checkpoints
     * the log, and waits for it to exit.
     *
     * @throws IOException when it does not exit in time (it is then killed) or exits with a status other than 0
     */
    public void stop() throws IOException, InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            throw new IOException("needle serve (pid " + process.pid() + ") did not stop within "
                    + STOP_TIMEOUT.toSeconds() + " s of SIGTERM and was killed" + logTail());
        }
        if (process.exitValue() != 0) {
            throw new IOException("needle serve (pid " + process.pid() + ") exited with status "
                    + process.exitValue() + " on SIGTERM" + logTail());
        }
    }

    /** Kills the process if it still runs and waits for it to be gone. */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                process.destroyForcibly();
                if (!process.waitFor(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("needle serve (pid " + process.pid() + ") survived SIGKILL for "
                            + KILL_TIMEOUT.toSeconds() + " s");
                }
            }
        } catch (InterruptedException e) {
            // The kill is sent; only the wait for it was cut short.
            Thread.currentThread().interrupt();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            } catch (IllegalStateException shuttingDown) {
                // This JVM is exiting: the hook is about to run, which is what it is for.
            }
        }
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (query == null) {
            Matcher m = READY.matcher(readLog());
            if (m.find()) {
                otlp = URI.create("http://" + m.group(1));
                query = URI.create("http://" + m.group(2));
            } else {
                checkRunning(deadline, "print its ready line");
                Thread.sleep(POLL_MILLIS);
            }
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        URI readyUri = query.resolve("/ready");
        HttpRequest ready = HttpRequest.newBuilder(readyUri).timeout(Duration.ofSeconds(5)).GET().build();
        while (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() != 200) {
            checkRunning(deadline, "answer 200 on " + readyUri);
            Thread.sleep(POLL_MILLIS);
        }
        startToReadyNanos = System.nanoTime() - startedNanos;
    }

    private void checkRunning(long deadline, String what) throws IOException {
        if (!process.isAlive()) {
            throw new IOException("needle serve exited with status " + process.exitValue() + " before it was ready"
                    + logTail());
        }
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("needle serve (pid " + process.pid() + ") did not " + what + " within "
                    + START_TIMEOUT.toSeconds() + " s" + logTail());
        }
    }

    private String readLog() throws IOException {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        }
    }

    /** The end of the server's output, to put in an exception's message. */
    private String logTail() {
        try {
            String text = readLog().strip();
            if (text.isEmpty()) {
                return "; it printed nothing (" + log + ")";
            }
            String tail = text.length() <= LOG_TAIL_CHARS ? text : "…" + text.substring(text.length() - LOG_TAIL_CHARS);
            return "; its output (" + log + "):\n" + tail;
        } catch (IOException e) {
            return "; its output could not be read: " + e;
        }
    }
}
