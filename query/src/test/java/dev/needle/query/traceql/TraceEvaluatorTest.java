package dev.needle.query.traceql;

import static dev.needle.query.traceql.Traces.span;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.ql.QueryParseException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TraceEvaluatorTest {

    /**
     * <pre>
     * 1 "GET /" (api, server, 0..4s)
     * ├── 2 "db" (api, client, error, db.system=postgres, 1..3s)
     * │   └── 4 "query" (db, http.status_code=500.0, 1..2s, events: exception{message=boom}, retry)
     * └── 3 "cache" (db, internal, http.status_code=200, cached=true, 3..3.5s)
     * </pre>
     */
    private static final List<SpanRecord> TRACE = List.of(
            span(1).name("GET /").service("api").kind(2).time(0, 4_000_000_000L).build(),
            span(2).parent(1).name("db").service("api").kind(3).status(2).attr("db.system", "postgres")
                    .time(1_000_000_000L, 3_000_000_000L).build(),
            span(3).parent(1).name("cache").service("db").kind(1).attr("http.status_code", 200).attr("cached", true)
                    .time(3_000_000_000L, 3_500_000_000L).build(),
            span(4).parent(2).name("query").service("db").attr("http.status_code", 500.0)
                    .event("exception", 1_500_000_000L, "message", "boom").event("retry", 1_600_000_000L, null, null)
                    .time(1_000_000_000L, 2_000_000_000L).build());

    @ParameterizedTest
    @CsvSource(delimiter = '#', value = {
        "{ name = \"db\" }#2",
        "{ span.http.status_code >= 500 }#4",
        "{ .http.status_code = 200 }#3",
        "{ span.http.status_code != 200 }#4",
        "{ span.missing != 1 }#",
        "{ span.http.status_code = nil }#1 2",
        "{ span.http.status_code != nil }#3 4",
        "{ status = error }#2",
        "{ .cached }#3",
        "{ !.cached }#",
        "{ .cached = true && kind = internal }#3",
        "{ kind = server }#1",
        "{ duration > 1s }#1 2",
        "{ duration >= 1s && duration < 2s }#4",
        "{ duration > 1s && duration < 2s }#",
        "{ resource.service.name = \"db\" }#3 4",
        "{ trace:rootService = \"api\" && trace:rootName = \"GET /\" && trace:duration = 4s }#1 2 3 4",
        "{ span:childCount = 2 }#1",
        "{ span:parentID = nil }#1",
        "{ nestedSetLeft = 1 && nestedSetRight = 8 }#1",
        "{ nestedSetParent = 2 }#4",
        "{ event:name = \"exception\" && event.message = \"boom\" }#4",
        "{ event:name = \"retry\" && event.message = \"boom\" }#",
        "{ event:timeSinceStart > 550ms }#4",
        "{ name =~ \"GET.*\" }#1",
        "{ name !~ \"GET.*\" }#2 3 4",
        "{ span.db.system = \"postgres\" && .http.status_code = nil }#2",
        "{ span.http.status_code / 100 = 5 }#4",
        "{ name = \"GET /\" } > { }#2 3",
        "{ name = \"GET /\" } >> { name = \"query\" }#4",
        "{ name = \"query\" } << { }#1 2",
        "{ name = \"query\" } < { }#2",
        "{ name = \"db\" } ~ { }#3",
        "{ name = \"db\" } !~ { }#1 2 4",
        "{ name = \"GET /\" } !> { }#1 4",
        "{ name = \"cache\" } !>> { }#1 2 3 4",
        "{ name = \"db\" } !<< { }#2 3 4",
        "{ name = \"GET /\" } &> { name = \"db\" }#1 2",
        "{ name = \"GET /\" } &>> { name = \"query\" || name = \"cache\" }#1 3 4",
        "{ name = \"query\" } &<< { name = \"GET /\" }#1 4",
        "{ name = \"db\" } &~ { }#2 3",
        "{ name = \"nope\" } > { }#",
        "{ name = \"nope\" } !> { kind = server }#1",
        "{ name = \"db\" } && { name = \"cache\" }#2 3",
        "{ name = \"db\" } && { name = \"nope\" }#",
        "{ name = \"db\" } || { name = \"nope\" }#2",
        "{ status = error } >> { } | { name = \"query\" }#4",
        "{ } | count() > 3#1 2 3 4",
        "{ } | count() > 4#",
        "{ } | avg(duration) >= 1125ms#1 2 3 4",
        "{ } | max(span.http.status_code) = 500#1 2 3 4",
        "{ kind != server } | min(duration) < 600ms#2 3 4",
        "max(duration) > 3s | { name = \"db\" }#2",
    })
    void findsTheSpansTempoFinds(String query, String expected) throws QueryParseException {
        List<Spanset> found = run(query);
        String ids = String.join(" ", found.stream().flatMap(s -> s.spans().stream())
                .map(m -> Long.toString(Long.parseLong(m.span().spanId().hex(), 16))).toList());
        assertEquals(expected == null ? "" : expected, ids, query);
    }

    @Test
    void scalarFiltersAndGroupsRecordTheirValues() throws QueryParseException {
        List<Spanset> found = run("{ } | by(resource.service.name) | count() = 2");
        assertEquals(2, found.size());
        assertEquals(Map.of("by(resource.service.name)", new Value.Str("api"), "count()", new Value.Int(2)),
                found.get(0).attributes());
        assertEquals(Map.of("by(resource.service.name)", new Value.Str("db"), "count()", new Value.Int(2)),
                found.get(1).attributes());
        assertEquals(1, run("{ } | by(resource.service.name) | coalesce()").size());
        assertEquals(new Value.Duration(2_000_000_000L),
                run("{ name = \"db\" } | sum(duration) > 1s").get(0).attributes().get("sum(duration)"));
        assertEquals(new Value.Float(350.0),
                run("{ } | avg(span.http.status_code) > 1").get(0).attributes().get("avg(span.http.status_code)"));
    }

    @Test
    void selectReturnsTheFieldsWithEachSpan() throws QueryParseException {
        List<Spanset> found = run("{ kind = client || kind = server } | select(span.db.system, resource.service.name, span:childCount)");
        assertEquals(1, found.size());
        assertEquals(Map.of("resource.service.name", new Value.Str("api"), "span:childCount", new Value.Int(2)),
                found.get(0).spans().get(0).selected());
        assertEquals(Map.of("span.db.system", new Value.Str("postgres"), "resource.service.name", new Value.Str("api"),
                "span:childCount", new Value.Int(1)), found.get(0).spans().get(1).selected());
    }

    @Test
    void structuralOperatorsRefuseSeveralSpansetsAsTempoDoes() {
        assertThrows(EvaluationException.class, () -> run("({ } | by(name)) >> { }"));
    }

    @Test
    void anEmptyTraceMatchesNothing() throws QueryParseException {
        assertEquals(List.of(), TraceEvaluator.evaluate(((Query.Spans) TraceQlParser.parse("{ }")).expr(), List.of()));
    }

    private static List<Spanset> run(String query) throws QueryParseException {
        return TraceEvaluator.evaluate(((Query.Spans) TraceQlParser.parse(query)).expr(), TRACE);
    }
}
