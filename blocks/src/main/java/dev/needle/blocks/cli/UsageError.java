package dev.needle.blocks.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How a needle command reports a command line it cannot take: {@code needle COMMAND: what was wrong},
 * picocli's suggestions when it has any (a mistyped subcommand), and where the help is, on standard error, with
 * picocli's exit status for bad input (2). The help itself is not printed: at some ninety lines it
 * would push the one line that matters off the screen.
 */
public final class UsageError implements IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine cli = e.getCommandLine();
        String command = "needle " + cli.getCommandSpec().qualifiedName();
        PrintWriter err = cli.getErr();
        err.println(command + ": " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("see `" + command + " --help`");
        err.flush();
        return cli.getExitCodeExceptionMapper() != null ? cli.getExitCodeExceptionMapper().getExitCode(e)
                : cli.getCommandSpec().exitCodeOnInvalidInput();
    }
}
