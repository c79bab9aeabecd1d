package dev.needle.blocks.cli;

import java.io.IOException;
import java.nio.file.FileSystemException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * How a needle command reports a failure: one line on standard error, {@code needle COMMAND: what
 * went wrong}, and exit status 1, never a stack trace. An I/O failure prints its message (a
 * {@link DataDirectory} check's is a whole sentence), any other its type as well.
 */
public final class OneLineFailure implements IExecutionExceptionHandler {

    /**
     * {@code command}'s command line, failing in one line: a failure as this class says it, a command line
     * it cannot take as {@link UsageError} says it.
     */
    public static CommandLine commandLine(Object command) {
        return new CommandLine(command).setExecutionExceptionHandler(new OneLineFailure())
                .setParameterExceptionHandler(new UsageError());
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine cli, ParseResult parsed) {
        cli.getErr().println("needle " + cli.getCommandSpec().qualifiedName() + ": " + describe(e));
        cli.getErr().flush();
        return 1;
    }

    private static String describe(Exception e) {
        if (e instanceof FileSystemException f) {
            return DataDirectory.describe(f);
        }
        return e instanceof IOException && e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
