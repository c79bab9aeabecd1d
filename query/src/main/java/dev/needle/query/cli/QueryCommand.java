package dev.needle.query.cli;

import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.query.engine.QueryAbortedException;
import dev.needle.sidecar.cli.NeedleVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code needle query}: trace-by-id and attribute lookups from the command line; the main class of {@code query-VERSION-cli.jar}. */
@Command(name = "query", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true,
        description = {"Look records up in a data directory (--data, the default) or a running server (--url).",
            "%nEvery span of one trace, or the newest spans or log records that match a query. Human tables "
                + "by default, --json for machines, --explain for the plan: which blocks were read, and why."},
        subcommands = {TraceCommand.class, SpansCommand.class, LogsCommand.class},
        footerHeading = "%nExamples:%n",
        footer = {"  needle query trace 4bf92f3577b34da6a3ce929d0e0e4736 --logs --explain",
            "  needle query spans '{ resource.service.name = \"checkout\" && status = error }'",
            "  needle query logs '{ severity >= warn }' --url http://127.0.0.1:3200"},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {QueryCommand.EXIT_OK, QueryCommand.EXIT_ERROR, QueryCommand.EXIT_USAGE,
            QueryCommand.EXIT_PARTIAL, QueryCommand.EXIT_NOT_FOUND})
public final class QueryCommand {

    static final int OK = 0;
    static final int ERROR = 1;
    static final int USAGE = 2;
    static final int PARTIAL = 3;
    static final int NOT_FOUND = 4;

    static final String EXIT_OK = " 0:the answer is complete (an empty search is complete too)";
    static final String EXIT_ERROR = " 1:an error: the data directory cannot be read, the server cannot be reached or fails";
    static final String EXIT_USAGE = " 2:a usage error, including a query that does not parse";
    static final String EXIT_PARTIAL = " 3:a partial answer: some block could not be read (named on stderr)";
    static final String EXIT_NOT_FOUND = " 4:the trace was not found";

    private QueryCommand() {
    }

    /** Runs {@code query} with the given arguments and exits with its status. */
    public static void main(String[] args) {
        // Arrow's Schema class builds and primes a Jackson ObjectMapper when it is first loaded, some 70 ms
        // of a fresh process; loading it on another core while picocli reads the command line takes that
        // off the way of a lookup.
        Thread arrow = new Thread(() -> SpanColumns.SCHEMA.getFields(), "needle-arrow-init");
        arrow.setDaemon(true);
        arrow.start();
        System.exit(commandLine().execute(args));
    }

    /** The command line; a failure prints one line (its message), not a stack trace, and exits with its code. */
    public static CommandLine commandLine() {
        return new CommandLine(new QueryCommand()).setExecutionExceptionHandler((e, cli, parsed) -> {
            String command = "needle " + cli.getCommandSpec().qualifiedName() + ": ";
            if (e instanceof QueryFailure f) {
                cli.getErr().println(command + f.getMessage());
                return f.exitCode();
            }
            if (e instanceof QueryAbortedException stopped) {
                cli.getErr().println(command + stopped.getMessage());
                return ERROR;
            }
            cli.getErr().println(command + e);
            return ERROR;
        });
    }
}
