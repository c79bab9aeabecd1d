package dev.needle.query.cli;

import dev.needle.blocks.model.Bytes;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code needle query trace HEX}: every span of one trace as a tree, and optionally its log records. */
@Command(name = "trace", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {"Print every span of one trace as a tree, and optionally its log records.",
            "%nEach span shows its offset from the trace's start, duration, status, span id, service and name; "
                + "children sit under their parent, by start time. With --logs the trace's log records follow. "
                + "No time range is needed: TRACE_IDX finds the blocks that hold the trace."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {QueryCommand.EXIT_OK, QueryCommand.EXIT_ERROR, QueryCommand.EXIT_USAGE,
            QueryCommand.EXIT_PARTIAL, QueryCommand.EXIT_NOT_FOUND})
final class TraceCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "HEX", converter = Args.TraceIdConverter.class,
            description = "the trace id: 1 to 32 hex digits (shorter ids are zero-padded on the left, as Tempo does)")
    Bytes traceId;

    @Option(names = "--logs", description = "also print the trace's log records")
    boolean logs;

    @Mixin
    QueryOptions options;

    @Override
    public Integer call() throws QueryFailure, IOException {
        Request request = options.request();
        try (Source source = options.open()) {
            Answer.Trace answer = source.trace(request, traceId, logs);
            int code = Output.emit(answer, options.json, spec);
            if (!answer.spans().isEmpty() || !answer.logs().isEmpty()) {
                return code;
            }
            spec.commandLine().getErr().println("needle " + spec.qualifiedName() + ": trace " + traceId.hex()
                    + " not found (tenant " + request.tenant()
                    + (request.range().isAll() ? "" : ", between " + Text.time(request.range().fromUnixNano())
                            + " and " + Text.time(request.range().toUnixNano())) + ")");
            // A partial answer says more: the trace may be in the block that could not be read.
            return code == QueryCommand.PARTIAL ? code : QueryCommand.NOT_FOUND;
        }
    }
}
