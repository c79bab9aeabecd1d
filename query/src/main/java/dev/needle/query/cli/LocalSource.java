package dev.needle.query.cli;

import dev.needle.blocks.cli.DataDirectory;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TraceQlResult;
import dev.needle.query.engine.TraceResult;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.EvaluationException;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.SearchQuery;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Answers lookups from a data directory, through a read-only store: it writes nothing and removes
 * nothing (not even the {@code .tmp-*} directories a running server is writing blocks in), so it is
 * safe beside a live server. It sees published blocks only, not the server's unpublished head.
 */
final class LocalSource implements Source {

    private final FsBlockStore store;
    private final QueryEngine engine;
    private final PrintWriter err;

    /** A source over {@code data}; a missing directory is an error rather than an empty answer. */
    LocalSource(Path data, PrintWriter err) throws QueryFailure {
        Path root;
        try {
            root = DataDirectory.requireReadable(data);
        } catch (IOException e) {
            throw new QueryFailure(QueryCommand.ERROR, e.getMessage()
                    + ": give --data DIR (the directory ./needle serve writes), or --url URL to ask a running server");
        }
        this.store = FsBlockStore.readOnly(root);
        this.engine = new QueryEngine(store, HeadSource.EMPTY, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(1, Runtime.getRuntime().availableProcessors()));
        this.err = err;
    }

    @Override
    public Answer.Trace trace(Request request, Bytes traceId, boolean withLogs) throws QueryFailure {
        noteTenant(request.tenant());
        try {
            TraceResult r = engine.trace(request.tenant(), traceId, request.range(), request.mechanisms(), withLogs);
            List<Explain> plans = new ArrayList<>();
            if (request.explain()) {
                plans.add(r.spanPlan());
                if (r.logPlan() != null) {
                    plans.add(r.logPlan());
                }
            }
            return new Answer.Trace(traceId, r.spans(), r.logs(), withLogs, r.problems(), plans);
        } catch (IOException | UncheckedIOException e) {
            throw unreadable(e);
        }
    }

    @Override
    public Answer spans(Request request, String query, SearchQuery parsed, int limit) throws QueryFailure {
        noteTenant(request.tenant());
        try {
            if (parsed instanceof SearchQuery.Selector selector) {
                SearchResult<SpanRecord> r = engine.searchSpans(request.tenant(), selector.expr(), request.range(), limit,
                        request.mechanisms());
                return new Answer.Spans(r.records(), limit, r.problems(), request.explain() ? List.of(r.plan()) : List.of());
            }
            TraceQlResult r = engine.searchTraces(request.tenant(), (Query.Spans) ((SearchQuery.TraceQl) parsed).query(),
                    request.range(), limit, request.mechanisms());
            // Newest trace first, as the server orders them.
            List<TraceSummary> traces = r.traces().stream().map(m -> TraceSummary.of(m.trace()))
                    .sorted(Comparator.comparingLong(TraceSummary::startTimeUnixNano).reversed()
                            .thenComparing(TraceSummary::traceId)).toList();
            return new Answer.Traces(traces, limit, r.problems(), request.explain() ? r.plans() : List.of());
        } catch (EvaluationException e) {
            throw new QueryFailure(QueryCommand.USAGE, "bad query: " + e.getMessage());
        } catch (IOException | UncheckedIOException e) {
            throw unreadable(e);
        }
    }

    @Override
    public Answer.Logs logs(Request request, String query, Expr expr, int limit) throws QueryFailure {
        noteTenant(request.tenant());
        try {
            SearchResult<LogRecord> r = engine.searchLogs(request.tenant(), expr, request.range(), limit,
                    request.mechanisms());
            return new Answer.Logs(r.records(), limit, r.problems(), request.explain() ? List.of(r.plan()) : List.of());
        } catch (IOException | UncheckedIOException e) {
            throw unreadable(e);
        }
    }

    /**
     * Says on stderr when the directory holds nothing of the tenant: an empty answer for the wrong
     * tenant looks exactly like an absent record, and data written with an X-Scope-OrgID is not
     * under the default tenant.
     */
    private void noteTenant(TenantId tenant) throws QueryFailure {
        try {
            List<TenantId> tenants = store.tenants();
            if (!tenants.contains(tenant)) {
                err.println("needle query: note: " + store.root() + " holds no blocks of tenant " + tenant
                        + (tenants.isEmpty() ? "; it holds no blocks at all"
                                : "; its tenants are " + String.join(", ", tenants.stream().map(TenantId::value).toList())
                                        + " (choose one with --tenant)"));
            }
        } catch (IOException e) {
            throw unreadable(e);
        }
    }

    private QueryFailure unreadable(Exception e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        return new QueryFailure(QueryCommand.ERROR, "cannot read " + store.root() + ": " + cause, cause);
    }

    @Override
    public void close() {
        engine.close();
    }
}
