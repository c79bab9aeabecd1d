package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.query.cli.QueryCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's first span, in and out, run as written against a server with the defaults: every {@code curl}
 * in its blocks is sent as it reads and must answer what the README shows under it, and the {@code ./needle
 * query} block must print what the README shows. A change to the API's output or to the README that makes them
 * disagree fails here.
 */
class ReadmeQuickStartTest {

    private static final Pattern FENCE = Pattern.compile("(?ms)^```[a-z]*\\n(.*?)^```\\n");
    private static final Pattern URL = Pattern.compile("http://127\\.0\\.0\\.1:(4318|3200)(/\\S*)");
    private static final Pattern HEADER = Pattern.compile("-H '([^:']+): ([^']*)'");
    private static final Pattern BODY = Pattern.compile("(?s) -d '(.*)'$");

    @TempDir
    Path dir;

    /** One command of a block and what the README shows it prints. */
    private record Step(String command, String shown) {
    }

    @Test
    void firstSpanInAndOut_answersWhatTheReadmeShows() throws Exception {
        List<String> blocks = blocks(Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8));
        List<Step> curls = steps(only(blocks, "curl -sS -H 'Content-Type: application/json'"), "curl ");
        assertEquals(2, curls.size(), "the README sends a span and fetches it back");
        List<Step> query = steps(only(blocks, "$ ./needle query trace"), "$ ./needle query ");
        assertEquals(1, query.size());

        try (NeedleServer server = NeedleServer.start(NeedleServer.Config.DEFAULTS.withData(dir).withPorts(0, 0))) {
            for (Step step : curls) {
                HttpResponse<byte[]> answer = curl(server, step.command());
                assertEquals(200, answer.statusCode(), step.command());
                assertEquals(step.shown(), Http.text(answer).strip(), step.command());
            }
            String[] args = query.get(0).command().substring("$ ./needle query ".length())
                    .replace("http://127.0.0.1:3200", "http://" + NeedleServer.hostPort(server.queryAddress()))
                    .split(" ");
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit = QueryCommand.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                    .execute(args);
            assertEquals(0, exit, err::toString);
            assertEquals(query.get(0).shown(), out.toString().strip());
        }
    }

    /** Sends one README {@code curl} command, GET or (with {@code -d}) POST, with its headers, to the server's ports. */
    private static HttpResponse<byte[]> curl(NeedleServer server, String command) throws IOException {
        Matcher url = URL.matcher(command);
        assertTrue(url.find(), command);
        InetSocketAddress at = url.group(1).equals("4318") ? server.otlpAddress() : server.queryAddress();
        List<String> headers = new ArrayList<>();
        String contentType = null;
        for (Matcher h = HEADER.matcher(command); h.find(); ) {
            if (h.group(1).equalsIgnoreCase("Content-Type")) {
                contentType = h.group(2);
            } else {
                headers.add(h.group(1));
                headers.add(h.group(2));
            }
        }
        Matcher body = BODY.matcher(command);
        String[] extra = headers.toArray(String[]::new);
        return body.find()
                ? Http.post(at, url.group(2), contentType, body.group(1).getBytes(StandardCharsets.UTF_8), extra)
                : Http.get(at, url.group(2), extra);
    }

    private static List<String> blocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        for (Matcher m = FENCE.matcher(markdown); m.find(); ) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    private static String only(List<String> blocks, String containing) {
        List<String> found = blocks.stream().filter(b -> b.contains(containing)).toList();
        assertEquals(1, found.size(), () -> "one README block holds " + containing);
        return found.get(0);
    }

    /**
     * The commands of a block and the lines shown after each. A command starts with {@code prefix} and runs on
     * while a quote it opened is still open, as a shell reads it.
     */
    private static List<Step> steps(String block, String prefix) {
        List<Step> steps = new ArrayList<>();
        StringBuilder command = null;
        StringBuilder shown = new StringBuilder();
        boolean open = false;
        for (String line : block.split("\n", -1)) {
            if (!open && line.startsWith(prefix)) {
                if (command != null) {
                    steps.add(new Step(command.toString(), shown.toString().strip()));
                }
                command = new StringBuilder(line);
                shown.setLength(0);
                open = quotes(line) % 2 == 1;
            } else if (open) {
                command.append('\n').append(line);
                open = (quotes(command.toString()) % 2) == 1;
            } else if (command != null) {
                shown.append(line).append('\n');
            }
        }
        assertFalse(open, "a quote the README opened is closed");
        if (command != null) {
            steps.add(new Step(command.toString(), shown.toString().strip()));
        }
        return steps;
    }

    private static long quotes(String s) {
        return Arrays.stream(s.split("")).filter("'"::equals).count();
    }
}
