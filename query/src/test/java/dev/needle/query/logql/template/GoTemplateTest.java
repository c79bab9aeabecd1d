package dev.needle.query.logql.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Templates against the examples of Loki's template_functions.md, with the outputs it states, or Go's
 * where the page errs ({@code minf 1 2.5 3} is 1, {@code ceil 123.001} prints 124).
 */
class GoTemplateTest {

    /** 2024-05-01T10:20:30.123456789Z */
    private static final long TIME = 1_714_558_830_123_456_789L;
    private static final Map<String, String> LABELS = Map.of("path", "/api/a b", "err", "ErrTimeout",
            "remote_addr", "129.168.1.1", "duration", "3000", "cluster", "eu-cluster", "foo", "1h30m",
            "from", "1679577215", "request_method", "GET", "some_label", "aaabc", "ip", "  1.1.1.1 ");

    private static String run(String template) throws TemplateException {
        return GoTemplate.parse("line", template).execute(new GoTemplate.Input(LABELS, "the Line", TIME));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '\'', value = {
        "{{ .path | replace \" \" \"_\" | trunc 5 | upper }} => /API/",
        "{{ if and (contains \"he\" \"hello\") (contains \"llo\" \"hello\") }} yes {{end}} => ' yes '",
        "{{ if contains \"ErrTimeout\" .err }} timeout {{else if contains \"he\" \"hello\"}} yes {{else}} no {{end}} => ' timeout '",
        "{{ if contains \"x\" .err }} timeout {{else if contains \"he\" \"hello\"}} yes {{else}} no {{end}} => ' yes '",
        "{{ if contains \"x\" .err }}t{{else if contains \"x\" \"hello\"}}y{{else}}n{{end}} => n",
        "{{ __line__ | lower }} => the line",
        "{{ __timestamp__ }} => 2024-05-01 10:20:30.123456789 +0000 UTC",
        "{{ __timestamp__ | date \"2006-01-02T15:04:05.00Z-07:00\" }} => 2024-05-01T10:20:30.12Z+00:00",
        "{{ __timestamp__ | unixEpoch }} => 1714558830",
        "{{ __timestamp__ | unixEpochMillis }} => 1714558830123",
        "{{ __timestamp__ | unixEpochNanos }} => 1714558830123456789",
        "{{ .foo | duration }} => 5400",
        "{{ duration_seconds \"1.5s\" }} => 1.5",
        "{{ toDate \"2006-01-02\" \"2021-11-02\" | unixEpoch }} => 1635811200",
        "{{ toDateInZone \"2006-01-02\" \"UTC\" \"2021-11-02\" | unixEpochMillis }} => 1635811200000",
        "{{ toDateInZone \"2006-01-02 15:04\" \"Europe/Berlin\" \"2021-11-02 10:00\" | unixEpoch }} => 1635843600",
        "from=\"{{date \"2006-01-02\" (unixToTime .from)}}\" => from=\"2023-03-23\"",
        "{{ alignLeft 5 \"hello world\"}} => hello",
        "{{ alignLeft 5 \"hi\"}} => 'hi   '",
        "{{ alignRight 5 \"hello world\"}} => world",
        "{{ alignRight 5 \"hi\"}} => '   hi'",
        "{{ \"hello\" | b64enc }} => aGVsbG8=",
        "{{ b64dec \"aGVsbG8\" }} => hello",
        "{{ bytes \"1.5KiB\" }} => 1536",
        "{{ default \"-\" \"\" }} => -",
        "{{ default \"-\" \"foo\" }} => foo",
        "{{ .missing | default \"-\" }} => -",
        "{{ lower \"HELLO\"}} => hello",
        "{{ indent 4 \"a\\nb\" }} => '    a\\n    b'",
        "{{ nindent 2 \"a\" }} => '\\n  a'",
        "{{ repeat 3 \"hello\" }} => hellohellohello",
        "{{ printf \"The IP address was %s\" .remote_addr }} => The IP address was 129.168.1.1",
        "{{ printf \"%-8.3s|\" .request_method}}{{printf \"%5.5s\" .err}} => 'GET     |ErrTi'",
        "{{ printf \"%d items, %.2f, %q, %v\" 3 2.5 \"a\" true }} => '3 items, 2.50, \"a\", true'",
        "{{ .cluster | replace \"-cluster\" \"\" }} => eu",
        "{{ replace \"hello\" \"world\" \"hello world\" }} => world world",
        "{{ substr 0 5 \"hello world\"}} => hello",
        "{{ substr 6 11 \"hello world\"}} => world",
        "{{ title \"hello world\"}} => Hello World",
        "{{ trim \"   hello    \" }} => hello",
        "{{ trimAll \"$\" \"$5.00\" }} => 5.00",
        "{{ trimPrefix \"-\" \"-hello\" }} => hello",
        "{{ trimSuffix \"-\" \"hello-\" }} => hello",
        "{{ trunc 5 \"hello world\"}} => hello",
        "{{ trunc -5 \"hello world\"}} => world",
        "{{ upper \"hello\"}} => HELLO",
        "{{ .path | urlencode }} => %2Fapi%2Fa+b",
        "{{ \"%2Fapi%2Fa+b\" | urldecode }} => /api/a b",
        "{{ if eq \"ErrTimeout\" .err }} timeout {{end}} => ' timeout '",
        "{{ if hasSuffix \"Timeout\" .err }}timeout{{end}} => timeout",
        "{{ if hasPrefix \"he\" \"hello\" }}yes{{end}} => yes",
        "{{ add 3 2 5 }} => 10",
        "{{ addf 3.5 2 5 }} => 10.5",
        "{{ ceil 123.001 }} => 124",
        "{{ div 10 2}} => 5",
        "{{ divf 10 2 4}} => 1.25",
        "{{ \"3.5\" | float64 }} => 3.5",
        "{{ floor 123.9999 }} => 123",
        "{{ \"3\" | int }} => 3",
        "{{ max 1 2 3 }} => 3",
        "{{ maxf 1 2.5 3 }} => 3",
        "{{ min 1 2 3 }} => 1",
        "{{ minf 1 2.5 3 }} => 1",
        "{{ mul 5 2 3}} => 30",
        "{{ mulf 5.5 2 2.5 }} => 27.5",
        "{{ mod 10 3}} => 1",
        "{{ round 123.555555 3 }} => 123.556",
        "{{ round 123.88571428571 5 .2 }} => 123.88572",
        "{{ sub 5 2 }} => 3",
        "{{ subf 5.5 2 1.5 }} => 2",
        "{{ count \"a|b\" \"abab\" }} => 4",
        "{{ count \"o\" \"foo\" }} => 2",
        "{{ regexReplaceAll \"(a*)bc\" .some_label \"${1}a\" }} => aaaa",
        "{{ regexReplaceAll \"(?P<x>a+)bc\" .some_label \"<$x>\" }} => <aaa>",
        "{{ regexReplaceAllLiteral \"(ts=)\" \"ts=1\" \"${1}x\" }} => ${1}x1",
        "{{ .ip | TrimSpace }}{{ ToUpper \"a\" }}{{ Replace \"aaa\" \"a\" \"b\" 2 }} => 1.1.1.1Abba",
        "{{ Trim \"xxhixx\" \"x\" }} {{ TrimLeft \"xxhi\" \"x\" }} {{ TrimPrefix \"xxhi\" \"x\" }} => hi hi xhi",
        "{{ div .duration 1000 }} => 3",
        "{{- \" a \" -}} {{ \"b\" }} {{/* a comment */}} => ' a b '",
        "{{ with .err }}{{ . }}!{{ else }}none{{ end }} => ErrTimeout!",
        "{{ with .missing }}{{ . }}{{ else }}none{{ end }} => none",
        "{{ len .err }} {{ not true }} {{ or \"\" \"x\" }} {{ lt 1 2 }} {{ index . \"err\" }} => 10 false x true ErrTimeout",
        "{{ 1000000.0 }} {{ 0.5 }} {{ 'a' }} {{ 0x10 }} => 1e+06 0.5 97 16",
    })
    void execute_docsExamples_giveTheirOutput(String template, String expected) throws TemplateException {
        assertEquals(expected.replace("\\n", "\n"), run(template.replace("\\n", "\n")));
    }

    @Test
    void execute_wrongArgument_failsNamingIt() {
        TemplateException e = assertThrows(TemplateException.class, () -> run("{{ ToUpper 5 }}"));
        assertEquals("template: line:1: executing \"line\" at <ToUpper 5>: error calling ToUpper: wrong type for value;"
                + " expected string; got int", e.getMessage());
        e = assertThrows(TemplateException.class, () -> run("{{ div 1 0 }}"));
        assertTrue(e.getMessage().endsWith("error calling div: runtime error: integer divide by zero"), e::getMessage);
        e = assertThrows(TemplateException.class, () -> run("{{ .err.x }}"));
        assertTrue(e.getMessage().endsWith("can't evaluate field x in type string"), e::getMessage);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '\'', value = {
        "{{ .a | }} => template: line:1: missing command",
        "{{ if .a }}x => template: line:1: unexpected EOF",
        "x{{ end }} => template: line:1: unexpected {{end}}",
        "{{ range .a }}{{ end }} => template: line:1: {{range}} is not supported by needle's templates",
        "{{ $x := 1 }} => template: line:1: variables ($…) are not supported by needle's templates",
        "{{ fromJson .a }} => template: line:1: function \"fromJson\" is not supported by needle's templates",
        "{{ nope }} => template: line:1: function \"nope\" not defined",
        "{{ .a | .b }} => template: line:1: non executable command in pipeline stage 2",
        "{{ \"x }} => template: line:1: unclosed action",
    })
    void parse_unsupportedOrBroken_saysWhat(String template, String expected) {
        TemplateException e = assertThrows(TemplateException.class, () -> GoTemplate.parse("line", template));
        assertEquals(expected, e.getMessage());
    }
}
