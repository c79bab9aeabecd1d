package dev.needle.sidecar.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code needle inspect}: looks inside needle's files. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Look inside needle's files.",
        subcommands = {InspectSidecarCommand.class})
public final class InspectCommand {

    /** Runs {@code inspect} with the given arguments and exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new InspectCommand()).execute(args));
    }
}
