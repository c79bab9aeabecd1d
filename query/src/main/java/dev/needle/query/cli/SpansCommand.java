package dev.needle.query.cli;

import dev.needle.query.traceql.SearchQuery;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code needle query spans QUERY}: the newest spans that match a selector, or the traces any TraceQL span query matches. */
@Command(name = "spans", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {"Print the newest spans that match QUERY, or with TraceQL beyond one selector the newest "
                + "traces it matches.",
            "%nA selector prints one row a span: time, trace id, service, name, duration, status. Conditions are "
                + "key = literal, combined with && and || and parentheses, or comparisons (!=, <, <=, >, >=, =~, !~); "
                + "keys are resource.<key>, span.<key>, instrumentation.<key>, .<key> (any scope), or the intrinsics "
                + "name, status, kind and duration. Literals are typed: \"500\" matches strings, 500 ints, 0.5 "
                + "doubles, true bools.",
            "%nAny other TraceQL span query, as Tempo's /api/search takes it (spanset operators && || between "
                + "selectors, structural ones > < >> << ~ and their ! and & forms, pipelines with count(), avg(), "
                + "by(), select() and more), prints one row a matching trace, named by its root span. Each trace "
                + "is judged whole, spans outside --since/--from/--to included, and answered when a span it "
                + "returns starts in the range.",
            "%nWith --url the server's /api/search answers instead, in Tempo's shape: one row a trace, also for "
                + "a selector, and --limit counts traces."},
        footerHeading = "%nExamples:%n",
        footer = {"  needle query spans '{ .service.name = \"cart\" && status = error }' --since 1h",
            "  needle query spans '{ duration > 2s }' --limit 5 --explain",
            "  needle query spans '{ .service.name = \"checkout\" } >> { status = error }'",
            "  needle query spans '{ name = \"GET /api/cart\" } | count() > 3' --since 15m"},
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
        SearchQuery query = search.parseSpans();
        Request request = options.request();
        try (Source source = options.open()) {
            return Output.emit(source.spans(request, search.query, query, search.limit), options.json, spec);
        }
    }
}
