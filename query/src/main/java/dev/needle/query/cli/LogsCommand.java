package dev.needle.query.cli;

import dev.needle.query.ql.Expr;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code needle query logs QUERY}: the newest log records that match. */
@Command(name = "logs", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {"Print the newest log records that match QUERY.",
            "%nOne row a record: time, severity, service, body (cut to one line of 80 characters), trace id. "
                + "The query language is the one of 'spans', with log.<key> for the record's attributes and the "
                + "intrinsic severity (a number 0 to 24, or trace, debug, info, warn, error, fatal)."},
        footerHeading = "%nExamples:%n",
        footer = {"  needle query logs '{ severity >= error && resource.service.name = \"cart\" }'",
            "  needle query logs '{ .k8s.pod.name = \"api-7f9\" }' --since 15m --json"},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {QueryCommand.EXIT_OK, QueryCommand.EXIT_ERROR, QueryCommand.EXIT_USAGE,
            QueryCommand.EXIT_PARTIAL})
final class LogsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    SearchOptions search;

    @Mixin
    QueryOptions options;

    @Override
    public Integer call() throws QueryFailure, IOException {
        Expr expr = search.parseLogs();
        Request request = options.request();
        try (Source source = options.open()) {
            return Output.emit(source.logs(request, search.query, expr, search.limit), options.json, spec);
        }
    }
}
