package dev.needle.query.logql.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.LokiEntry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every pipeline stage against the examples of Loki's log query documentation (log_queries/_index.md):
 * an entry with the stream labels and line of the example goes through the query, and the labels and
 * line that come out are the ones the documentation states.
 */
class PipelineTest {

    private static final long TIME = 1_714_558_830_000_000_000L;
    private static final String DOC = "{\"protocol\": \"HTTP/2.0\", \"servers\": [\"129.0.1.1\",\"10.2.1.3\"],"
            + " \"request\": {\"time\": \"6.032\", \"method\": \"GET\", \"host\": \"foo.grafana.net\", \"size\": \"55\","
            + " \"headers\": {\"Accept\": \"*/*\", \"User-Agent\": \"curl/7.68.0\"}},"
            + " \"response\": {\"status\": 401, \"size\": \"228\", \"latency_seconds\": \"6.031\"}}";
    private static final String LOGFMT = "at=info method=GET path=/ host=grafana.net fwd=\"124.133.124.161\" service=8ms"
            + " status=200";
    private static final String NGINX = "0.191.12.2 - - [10/Jun/2021:09:14:29 +0000] \"GET /api/plugins/versioncheck"
            + " HTTP/1.1\" 200 2 \"-\" \"Go-http-client/2.0\" \"13.76.247.102, 34.120.177.193\" \"TLSv1.2\" \"US\" \"\"";

    /** The entry {@code query} leaves of a line in the stream {job="varlogs"} with {@code metadata}; null when dropped. */
    private static LokiEntry run(String query, String line, Map<String, String> metadata) throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{job=\"varlogs\"} " + query);
        return q.apply(new LokiEntry(TIME, line, Map.of("job", "varlogs"), metadata, metadata, Map.of()));
    }

    private static LokiEntry run(String query, String line) throws Exception {
        return run(query, line, Map.of());
    }

    /** Every label of an entry as a flat map: stream labels, structured metadata and the labels made. */
    private static Map<String, String> all(LokiEntry e) {
        Map<String, String> all = new TreeMap<>(e.labels());
        all.putAll(e.shown());
        all.putAll(e.parsed());
        return all;
    }

    private static Map<String, String> labels(String... pairs) {
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            out.put(pairs[i], pairs[i + 1]);
        }
        return out;
    }

    @Test
    void json_withoutParameters_flattensNestedKeysAndSkipsArrays() throws Exception {
        LokiEntry e = run("| json", DOC);
        assertEquals(labels("job", "varlogs", "protocol", "HTTP/2.0", "request_time", "6.032", "request_method", "GET",
                "request_host", "foo.grafana.net", "request_size", "55", "request_headers_Accept", "*/*",
                "request_headers_User_Agent", "curl/7.68.0", "response_status", "401", "response_size", "228",
                "response_latency_seconds", "6.031"), all(e));
        assertEquals(DOC, e.line());
        assertEquals(labels("a_b_c", "d", "e", "f", "job", "varlogs"), all(run("| json", "{\"a.b\": {\"c\": \"d\"}, \"e\": \"f\"}")));
    }

    @Test
    void json_withParameters_extractsPathsAndGivesObjectsAsJson() throws Exception {
        assertEquals(labels("job", "varlogs", "first_server", "129.0.1.1", "ua", "curl/7.68.0"),
                all(run("| json first_server=\"servers[0]\", ua=\"request.headers[\\\"User-Agent\\\"]\"", DOC)));
        assertEquals(labels("job", "varlogs", "server_list", "[\"129.0.1.1\",\"10.2.1.3\"]",
                        "headers", "{\"Accept\": \"*/*\", \"User-Agent\": \"curl/7.68.0\"}"),
                all(run("| json server_list=\"servers\", headers=\"request.headers\"", DOC)));
        assertEquals(labels("job", "varlogs", "servers", "[\"129.0.1.1\",\"10.2.1.3\"]", "nothing", ""),
                all(run("| json servers, nothing=\"no.such[3]\"", DOC)));
    }

    @Test
    void parsers_keyOfAnExistingLabel_getsExtractedSuffix_firstValueWins() throws Exception {
        assertEquals(labels("job", "varlogs", "job_extracted", "api", "level", "warn", "level_extracted", "x"),
                all(run("| json | logfmt", "{\"job\": \"api\", \"level_extracted\": \"x\"}", Map.of("level", "warn"))));
        // logfmt's level is not taken again: json's value stays.
        assertEquals("info", run("| json | logfmt", "{\"lvl\":\"info\"}").parsed().get("lvl"));
    }

    @Test
    void json_notJson_setsErrorAndKeepsTheLine() throws Exception {
        LokiEntry e = run("| json", "INFO GET / loki.net 200");
        assertEquals(labels("job", "varlogs", "__error__", "JSONParserErr",
                "__error_details__", "Value looks like object, but can't find closing '}' symbol"), all(e));
        assertEquals("INFO GET / loki.net 200", e.line());
        assertEquals(labels("job", "varlogs"), all(run("| json | drop __error__, __error_details__", "INFO GET / loki.net 200")));
        assertEquals(labels("job", "varlogs", "a", "1"), all(run("| json | __error__=\"\"", "{\"a\":1}")));
        assertNull(run("| json | __error__=\"\"", "INFO"));
    }

    @Test
    void logfmt_withAndWithoutParameters() throws Exception {
        assertEquals(labels("job", "varlogs", "at", "info", "method", "GET", "path", "/", "host", "grafana.net",
                "fwd", "124.133.124.161", "service", "8ms", "status", "200"), all(run("| logfmt", LOGFMT)));
        assertEquals(labels("job", "varlogs", "host", "grafana.net", "fwd_ip", "124.133.124.161"),
                all(run("| logfmt host, fwd_ip=\"fwd\"", LOGFMT)));
    }

    @Test
    void logfmt_strictStopsAtABadPair_otherwiseSkipsIt() throws Exception {
        String line = "key=value foo=bar=buzz other=\"value in double quotes\" flag";
        assertEquals(labels("job", "varlogs", "key", "value", "other", "value in double quotes"), all(run("| logfmt", line)));
        assertEquals(labels("job", "varlogs", "key", "value", "other", "value in double quotes", "flag", ""),
                all(run("| logfmt --keep-empty", line)));
        assertEquals(labels("job", "varlogs", "key", "value", "__error__", "LogfmtParserErr",
                "__error_details__", "logfmt syntax error at pos 18 : unexpected '='"), all(run("| logfmt --strict", line)));
        assertEquals(labels("job", "varlogs", "__error__", "LogfmtParserErr",
                "__error_details__", "logfmt syntax error at pos 1 : unexpected '='"), all(run("| logfmt --strict", "=value")));
        assertEquals(labels("job", "varlogs", "__error__", "LogfmtParserErr",
                "__error_details__", "logfmt syntax error at pos 3 : unexpected '\"'"), all(run("| logfmt --strict", "fo\"o=bar")));
    }

    @Test
    void pattern_nginxLine_andAnUnanchoredPattern() throws Exception {
        assertEquals(labels("job", "varlogs", "ip", "0.191.12.2", "method", "GET", "uri", "/api/plugins/versioncheck",
                        "status", "200", "size", "2", "agent", "Go-http-client/2.0"),
                all(run("| pattern `<ip> - - <_> \"<method> <uri> <_>\" <status> <size> <_> \"<agent>\" <_>`", NGINX)));
        String line = "level=debug ts=2021-06-10T09:24:13.472094048Z caller=logging.go:66 traceID=0568b66ad2d9294c"
                + " msg=\"POST /loki/api/v1/push (204) 16.652862ms\"";
        assertEquals(labels("job", "varlogs", "method", "POST", "path", "/loki/api/v1/push", "status", "204",
                "latency", "16.652862ms"), all(run("| pattern `<_> msg=\"<method> <path> (<status>) <latency>\"`", line)));
        // Anchored at the start: a line that does not start with the literal gets nothing.
        assertEquals(labels("job", "varlogs"), all(run("| pattern `msg=\"<method> <_>`", line)));
    }

    @Test
    void pattern_thenLineFormat_asQueryingMdShowsIt() throws Exception {
        LokiEntry e = run("| pattern \"<action> failed: <reason>\" | line_format \"{{.reason | upper}}\"",
                "payment failed: timeout");
        assertEquals("TIMEOUT", e.line());
        assertEquals(labels("job", "varlogs", "action", "payment", "reason", "timeout"), all(e));
    }

    @Test
    void regexp_namedGroupsBecomeLabels() throws Exception {
        assertEquals(labels("job", "varlogs", "method", "POST", "path", "/api/prom/api/v1/query_range", "status", "200",
                        "duration", "1.5s"),
                all(run("| regexp \"(?P<method>\\\\w+) (?P<path>[\\\\w|/]+) \\\\((?P<status>\\\\d+?)\\\\) (?P<duration>.*)\"",
                        "POST /api/prom/api/v1/query_range (200) 1.5s")));
        assertEquals(labels("job", "varlogs", "user_id", "42"), all(run("| regexp `user=(?P<user_id>\\d+)`", "a user=42 b")));
    }

    @Test
    void unpack_takesPackedLabelsAndTheEntry() throws Exception {
        LokiEntry e = run("| unpack", "{\"container\": \"myapp\", \"pod\": \"pod-3223f\", \"_entry\": \"original log message\"}");
        assertEquals(labels("job", "varlogs", "container", "myapp", "pod", "pod-3223f"), all(e));
        assertEquals("original log message", e.line());
        assertEquals("JSONParserErr", run("| unpack", "not json").parsed().get("__error__"));
    }

    @Test
    void lineFormat_rewritesTheLineFromLabels() throws Exception {
        assertEquals("select 1 10ms", run("| logfmt | line_format \"{{.query}} {{.duration}}\"",
                "query=\"select 1\" duration=10ms").line());
        assertEquals("1.1.1.1 200 3", run("| logfmt | line_format \"{{.ip}} {{.status}} {{div .duration 1000}}\"",
                "ip=1.1.1.1 status=200 duration=3000").line());
        assertEquals("varlogs: a=1 @ 2024-05-01 10:20:30 +0000 UTC", run("| line_format `{{.job}}: {{__line__}} @ {{__timestamp__}}`",
                "a=1").line());
        assertEquals("", run("| line_format \"{{.missing}}\"", "a=1").line());
        LokiEntry failed = run("| line_format \"{{ ToUpper 5 }}\"", "kept");
        assertEquals("kept", failed.line());
        assertEquals("TemplateFormatErr", failed.parsed().get("__error__"));
    }

    @Test
    void labelFormat_renameDropsTheSource_templateKeepsIt() throws Exception {
        assertEquals(labels("job", "varlogs", "dst", "v"), all(run("| logfmt | label_format dst=src", "src=v")));
        assertEquals(labels("job", "varlogs", "src", "v", "dst", "v!"),
                all(run("| logfmt | label_format dst=\"{{.src}}!\"", "src=v")));
        // A stream label is overridden by a template of its name.
        assertEquals(labels("job", "VARLOGS"), all(run("| label_format job=`{{ .job | upper }}`", "x")));
        assertEquals(labels("job", "varlogs"), all(run("| label_format dst=nothing", "x")));
    }

    @Test
    void drop_namesAndMatchers_asTheDocsExamples() throws Exception {
        assertEquals(labels("job", "varlogs", "host", "grafana.net", "path", "/", "status", "200"),
                all(run("| json | drop level, method=\"GET\"",
                        "{\"level\": \"info\", \"method\": \"GET\", \"path\": \"/\", \"host\": \"grafana.net\", \"status\": \"200\"}")));
        assertEquals(labels("host", "grafana.net", "job", "varlogs", "method", "GET", "status", "200"),
                all(run("| json | drop level, path, app=~\"some-api.*\"", "{\"app\": \"some-api-service\", \"level\": \"info\","
                        + " \"method\": \"GET\", \"path\": \"/\", \"host\": \"grafana.net\", \"status\": \"200\"}")));
        assertEquals(labels("app", "other-service", "host", "grafana.net", "job", "varlogs", "method", "GET", "status", "200"),
                all(run("| json | drop level, path, app=~\"some-api.*\"", "{\"app\": \"other-service\", \"level\": \"info\","
                        + " \"method\": \"GET\", \"path\": \"/\", \"host\": \"grafana.net\", \"status\": \"200\"}")));
        // A stream label can be dropped too.
        assertEquals(labels(), all(run("| drop job", "x")));
    }

    @Test
    void keep_onlyTheNamedLabels_andTheErrors() throws Exception {
        String get = "{\"level\": \"info\", \"method\": \"GET\", \"path\": \"/\", \"host\": \"grafana.net\", \"status\": \"200\"}";
        assertEquals(labels("level", "info", "method", "GET"), all(run("| json | keep level, method=\"GET\"", get)));
        assertEquals(labels("level", "info"), all(run("| json | keep level, method=\"GET\"", get.replace("GET", "POST"))));
        assertEquals(labels("app", "some-api-service", "level", "info"), all(run("| json | keep level, tenant, app=~\"some-api.*\"",
                "{\"app\": \"some-api-service\", \"level\": \"info\", \"method\": \"GET\"}")));
        assertEquals(labels("__error__", "JSONParserErr", "__error_details__",
                "Value looks like object, but can't find closing '}' symbol"), all(run("| json | keep level", "plain")));
    }

    @Test
    void labelFilters_numbersDurationsAndSizes() throws Exception {
        String line = "duration=25ms size=20KB method=POST status=404";
        assertEquals("POST", run("| logfmt | duration >= 20ms or size == 20KB and method!~\"2..\"", line).parsed().get("method"));
        assertNull(run("| logfmt | (duration >= 30ms or size == 20KB) and method!~\"PO.*\"", line));
        assertEquals("404", run("| logfmt | status >= 400 and status < 500", line).parsed().get("status"));
        assertNull(run("| logfmt | status == 200", line));
        assertNull(run("| logfmt | size > 20MB", line));
        assertEquals("20KB", run("| logfmt | size > 19.5KiB", line).parsed().get("size"));
        assertEquals("25ms", run("| logfmt | duration > 0.02s", line).parsed().get("duration"));
        // A label that is missing fails; one that does not convert passes with an error.
        assertNull(run("| logfmt | latency > 1s", line));
        LokiEntry bad = run("| logfmt | method > 1s", line);
        assertEquals("LabelFilterErr", bad.parsed().get("__error__"));
        assertEquals("time: invalid duration \"POST\"", bad.parsed().get("__error_details__"));
        assertEquals("strconv.ParseFloat: parsing \"POST\": invalid syntax",
                run("| logfmt | method > 1", line).parsed().get("__error_details__"));
        // Numbers cannot read __error__, so such a filter matches nothing.
        assertNull(run("| json | __error__ > 0", "not json"));
    }

    @Test
    void ipFilters_onLabelsAndLines() throws Exception {
        assertEquals("192.168.4.5", run("| logfmt | addr = ip(\"192.168.0.0/16\")", "addr=192.168.4.5").parsed().get("addr"));
        assertNull(run("| logfmt | addr = ip(\"192.168.0.0/16\")", "addr=10.0.0.1"));
        assertNull(run("| logfmt | addr != ip(\"10.0.0.1-10.0.0.9\")", "addr=10.0.0.5"));
        assertEquals("x", run("| logfmt | addr = ip(\"::1\")", "addr=0:0:0:0:0:0:0:1 y=x").parsed().get("y"));
        assertEquals("GET from 10.1.2.3 ok", run("|= ip(\"10.0.0.0/8\")", "GET from 10.1.2.3 ok").line());
        assertNull(run("|= ip(\"10.0.0.0/8\")", "GET from 192.168.1.1 version 10.1"));
        assertNull(run("!= ip(\"10.0.0.0/8\")", "GET from 10.1.2.3 ok"));
    }

    @Test
    void lineFilters_orAndPatterns() throws Exception {
        assertEquals("an error", run("|= \"error\" or \"warn\"", "an error").line());
        assertNull(run("|= \"error\" or \"warn\"", "all fine"));
        assertNull(run("!= \"error\" or \"warn\"", "a warning"));
        assertEquals("all fine", run("!= \"error\" or \"warn\"", "all fine").line());
        assertEquals("x", run("|~ \"^x$\" or \"^y$\"", "x").line());
        assertEquals("GET /api 200", run("|> \"<_> /api <_>\"", "GET /api 200").line());
        assertNull(run("|> \"<_> /api <_>\"", "GET /web 200"));
        assertEquals("GET /web 200", run("!> \"<_> /api <_>\"", "GET /web 200").line());
    }

    @Test
    void decolorize_removesAnsiCodes() throws Exception {
        assertEquals("WARN done", run("| decolorize", "\u001b[33mWARN\u001b[0m done").line());
    }

    @Test
    void stagesRunInOrder_lineFiltersSeeTheFormattedLine() throws Exception {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("trace_id", "abc");
        LokiEntry e = run("| json | line_format \"{{.msg}} ({{.trace_id}})\" |= \"(abc)\" | label_format msg=\"\"",
                "{\"msg\": \"hello\"}", metadata);
        assertEquals("hello (abc)", e.line());
        assertEquals(labels("job", "varlogs", "trace_id", "abc", "msg", ""), all(e));
    }
}
