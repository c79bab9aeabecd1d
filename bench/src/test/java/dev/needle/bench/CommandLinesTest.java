package dev.needle.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.bench.s3.LocalS3Command;
import dev.needle.bench.scenario.BenchCommand;
import dev.needle.blocks.cli.InspectCommand;
import dev.needle.corpus.cli.GenCommand;
import dev.needle.ingest.server.ServeCommand;
import dev.needle.query.cli.QueryCommand;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every needle command as a user first meets it: the module that depends on all the others is
 * the one place that sees every command, from {@code inspect} to {@code bench}.
 */
final class CommandLinesTest {

    /** A paragraph of a command's description: empty, or a sentence, after any blank lines. */
    private static final Pattern SENTENCE_START = Pattern.compile("(%n)*([A-Z].*|)");

    @Test
    void version_everyCommandAndSubcommandPrintsTheProjectVersion() {
        for (CommandLine cli : everyCommand()) {
            StringWriter out = new StringWriter();
            cli.printVersionHelp(new PrintWriter(out, true));
            assertEquals("needle " + NeedleVersion.version(), out.toString().strip(), cli.getCommandName());
        }
    }

    @Test
    void help_wrapsAtTheTerminalWidth_withWholeParagraphs() {
        for (CommandLine cli : everyCommand()) {
            CommandSpec spec = cli.getCommandSpec();
            assertTrue(spec.usageMessage().autoWidth(), spec.qualifiedName());
            // A hard line break inside a sentence shows as an element that starts mid-sentence.
            for (String paragraph : spec.usageMessage().description()) {
                assertTrue(SENTENCE_START.matcher(paragraph).matches(), spec.qualifiedName() + ": " + paragraph);
            }
            for (ArgSpec arg : spec.args()) {
                assertTrue(arg.description().length <= 1, spec.qualifiedName() + ": " + String.join("|", arg.description()));
            }
        }
    }

    /** Each executable's command line and all of its subcommands. */
    private static List<CommandLine> everyCommand() {
        List<CommandLine> all = new ArrayList<>();
        for (Object top : new Object[] {new InspectCommand(), QueryCommand.class, new ServeCommand(), new GenCommand(),
            new BenchCommand(), new LocalS3Command()}) {
            addWithSubcommands(top instanceof Class<?> c ? new CommandLine(c) : new CommandLine(top), all);
        }
        return all;
    }

    private static void addWithSubcommands(CommandLine cli, List<CommandLine> all) {
        all.add(cli);
        cli.getSubcommands().values().forEach(sub -> addWithSubcommands(sub, all));
    }
}
