package dev.needle.query.cli;

import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Expr;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code needle query spans QUERY}: the newest spans that match. */
@Command(name = "spans", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {"Print the newest spans that match QUERY.",
            "%nOne row a span: time, trace id, service, name, duration, status. Conditions are key = literal, "
                + "combined with && and || and parentheses, or comparisons (!=, <, <=, >, >=); keys are "
                + "resource.<key>, span.<key>, instrumentation.<key>, .<key> (any scope), or the intrinsics name, "
                + "status, kind and duration. Literals are typed: \"500\" matches strings, 500 ints, 0.5 doubles, "
                + "true bools.",
            "%nWith --url the server's /api/search answers instead, in Tempo's shape: one row a trace that holds "
                + "matching spans, named by its root span, and --limit counts traces."},
        footerHeading = "%nExamples:%n",
        footer = {"  needle query spans '{ .service.name = \"cart\" && status = error }' --since 1h",
            "  needle query spans '{ duration > 2s }' --limit 5 --explain"},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {QueryCommand.EXIT_OK, QueryCommand.EXIT_ERROR, QueryCommand.EXIT_USAGE,
            QueryCommand.EXIT_PARTIAL})
final class SpansCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    SearchOptions search;

    @Mixin
    QueryOptions options;

    @Override
    public Integer call() throws QueryFailure, IOException {
        Expr expr = search.parse(Signal.SPANS);
        Request request = options.request();
        try (Source source = options.open()) {
            return Output.emit(source.spans(request, search.query, expr, search.limit), options.json, spec);
        }
    }
}
