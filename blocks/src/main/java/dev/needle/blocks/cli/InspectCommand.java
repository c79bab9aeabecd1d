package dev.needle.blocks.cli;

import dev.needle.sidecar.cli.InspectSidecarCommand;
import dev.needle.sidecar.cli.NeedleVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code needle inspect}: looks inside needle's files; the main class of {@code blocks-VERSION-cli.jar}. */
@Command(name = "inspect", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true,
        description = "Look inside needle's files: one sidecar, one block, or a whole data directory.",
        subcommands = {InspectSidecarCommand.class, InspectBlockCommand.class, InspectStoreCommand.class})
public final class InspectCommand {

    /** Runs {@code inspect} with the given arguments and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line, whose failures (an unreadable directory, say) print one line, not a stack trace. */
    static CommandLine commandLine() {
        return OneLineFailure.commandLine(new InspectCommand());
    }
}
