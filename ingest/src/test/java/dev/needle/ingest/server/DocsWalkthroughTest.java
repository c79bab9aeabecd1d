package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.query.cli.QueryCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's first span in and out and docs/QUERYING.md's walk-through, run as written: the server started
 * with the page's {@code ./needle serve} line (on a new directory and free ports), then every command of the
 * page in order — {@code curl} by the real curl through bash, {@code sleep} as the page sleeps,
 * {@code ./needle query} by the query command in this process — each printing what the page shows under it.
 * What the pages say varies is masked on both sides: a response's {@code Date}, Loki's {@code stats} object
 * (shown as {@code …}), and how and at what size a plan read the store's index.
 */
class DocsWalkthroughTest {

    private static final Pattern FENCE = Pattern.compile("(?ms)^```[a-z]*\\n(.*?)^```\\n");
    private static final Pattern INDEX_LINE = Pattern.compile("blocks from the index \\((\\d+) blocks?;[^)]*\\)");
    private static final Pattern DATE = Pattern.compile("(?m)^Date: .*$");

    @TempDir
    Path dir;

    /** One command of the page and what the page shows it prints. */
    private record Step(String command, String shown) {
    }

    @Test
    void readme_firstSpanInAndOut_printsWhatThePageShows() throws Exception {
        assertEquals(3, run(Path.of("..", "README.md")), "the README sends a span, fetches it and prints its tree");
    }

    @Test
    @Tag("slow")
    void querying_everyCommandOfTheWalkThrough_printsWhatThePageShows() throws Exception {
        assertTrue(run(Path.of("..", "docs", "QUERYING.md")) >= 20, "the page's commands were found and checked");
    }

    /** Runs every command of {@code page} against a server started as the page starts it; how many were checked. */
    private int run(Path page) throws Exception {
        assumeCurl();
        List<String> blocks = new ArrayList<>();
        for (Matcher m = FENCE.matcher(Files.readString(page, StandardCharsets.UTF_8)); m.find(); ) {
            blocks.add(m.group(1));
        }
        String serve = blocks.stream().filter(b -> b.startsWith("./needle serve")).findFirst().orElseThrow();
        List<String> serveArgs = new ArrayList<>(words(serve.strip().substring("./needle serve".length())));
        int data = serveArgs.indexOf("--data");
        if (data < 0) {
            serveArgs.addAll(List.of("--data", dir.toString()));
        } else {
            serveArgs.set(data + 1, dir.toString());
        }
        serveArgs.addAll(List.of("--otlp-port", "0", "--query-port", "0"));
        ServeCommand command = new ServeCommand();
        new CommandLine(command).parseArgs(serveArgs.toArray(String[]::new));

        int checked = 0;
        try (NeedleServer server = NeedleServer.start(command.config())) {
            String otlp = "127.0.0.1:" + server.otlpAddress().getPort();
            String query = "127.0.0.1:" + server.queryAddress().getPort();
            for (String block : blocks) {
                for (Step step : steps(block)) {
                    String cmd = step.command().replace("127.0.0.1:4318", otlp).replace("127.0.0.1:3200", query);
                    String printed;
                    if (cmd.startsWith("sleep ")) {
                        TimeUnit.SECONDS.sleep(Long.parseLong(cmd.substring("sleep ".length()).strip()));
                        continue;
                    } else if (cmd.startsWith("curl ")) {
                        printed = bash(cmd);
                    } else {
                        printed = needleQuery(words(cmd.substring("./needle query ".length())));
                    }
                    if (!step.shown().isEmpty() || cmd.startsWith("./needle")) {
                        assertEquals(masked(step.shown()), masked(printed), step.command());
                        checked++;
                    }
                }
            }
        }
        return checked;
    }

    /**
     * The commands of a block and the lines shown after each. Commands are the lines that start with
     * {@code $ }, or in a block without prompts those that start with {@code curl}, {@code sleep} or
     * {@code ./needle query}; a command runs on over lines ending in a backslash or while a quote is open.
     */
    private static List<Step> steps(String block) {
        boolean prompts = block.startsWith("$ ");
        List<Step> steps = new ArrayList<>();
        StringBuilder command = null;
        StringBuilder shown = new StringBuilder();
        boolean continues = false;
        for (String line : block.split("\n")) {
            if (continues) {
                command.append('\n').append(line);
                continues = continues(command.toString());
                continue;
            }
            String text = prompts && line.startsWith("$ ") ? line.substring(2) : line;
            boolean isCommand = prompts ? line.startsWith("$ ")
                    : line.startsWith("curl ") || line.startsWith("sleep ") || line.startsWith("./needle query ");
            if (isCommand) {
                if (command != null) {
                    steps.add(new Step(command.toString(), shown.toString().strip()));
                }
                command = new StringBuilder(text);
                shown.setLength(0);
                continues = continues(text);
            } else if (command != null) {
                shown.append(line).append('\n');
            }
        }
        if (command != null) {
            steps.add(new Step(command.toString(), shown.toString().strip()));
        }
        steps.removeIf(s -> !(s.command().startsWith("curl ") || s.command().startsWith("sleep ")
                || s.command().startsWith("./needle query ")));
        return steps;
    }

    private static boolean continues(String text) {
        return text.endsWith("\\") || Arrays.stream(text.split("")).filter("'"::equals).count() % 2 == 1;
    }

    /** What the page leaves to chance, the same on both sides. */
    private static String masked(String text) {
        String out = DATE.matcher(text).replaceAll("Date: …");
        out = INDEX_LINE.matcher(out).replaceAll("blocks from the index ($1 blocks; …)");
        out = maskStats(out);
        return out.lines().map(String::stripTrailing).reduce((a, b) -> a + "\n" + b).orElse("").strip();
    }

    /** Loki's {@code "stats":{…}}, whatever it holds. */
    private static String maskStats(String text) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        for (int i = text.indexOf("\"stats\":{"); i >= 0; i = text.indexOf("\"stats\":{", at)) {
            int open = i + "\"stats\":".length();
            int depth = 0;
            int end = open;
            do {
                char c = text.charAt(end++);
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            } while (depth > 0 && end < text.length());
            out.append(text, at, open).append("{…}");
            at = end;
        }
        return out.append(text.substring(at)).toString();
    }

    /** Runs a command line with bash and returns its standard output and error as one text. */
    private static String bash(String commandLine) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", commandLine).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), commandLine);
        return out.replace("\r\n", "\n");
    }

    /** The words of a command line as bash splits them. */
    private static List<String> words(String line) throws IOException, InterruptedException {
        if (line.isBlank()) {
            return List.of();
        }
        String out = bash("printf '%s\\0' " + line);
        return out.isEmpty() ? List.of() : List.of(out.substring(0, out.length() - 1).split("\0", -1));
    }

    private static String needleQuery(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        QueryCommand.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args.toArray(String[]::new));
        return out + err.toString();
    }

    private static void assumeCurl() throws IOException, InterruptedException {
        assertEquals(0, new ProcessBuilder("bash", "-c", "command -v curl").start().waitFor(),
                "curl runs the page's commands, as a reader runs them");
    }
}
