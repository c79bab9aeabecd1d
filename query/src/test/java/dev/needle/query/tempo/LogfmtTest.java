package dev.needle.query.tempo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.model.Signal;
import dev.needle.query.http.ApiException;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code tags} parameter's logfmt, read into the same expressions the query language gives. */
class LogfmtTest {

    private static Expr.Condition eq(String key, Literal literal) {
        return new Expr.Condition(new Attribute(Signal.SPANS, Attribute.Scope.UNSCOPED, key), Op.EQ, literal);
    }

    private static Expr str(String key, String value) {
        return eq(key, new Literal.StringLit(value));
    }

    @Test
    void parse_pairs_areAndedStringEqualities() throws ApiException {
        assertEquals(str("service.name", "cart"), Logfmt.parse("service.name=cart"));
        assertEquals(new Expr.And(List.of(str("service.name", "my cart"), str("k8s.pod.name", "api-7f9"),
                        str("q", "say \"hi\"\\\n"))),
                Logfmt.parse("  service.name=\"my cart\"\tk8s.pod.name=api-7f9 q=\"say \\\"hi\\\"\\\\\\n\" "));
        assertEquals(str("empty", ""), Logfmt.parse("empty="));
        assertEquals(str("empty", ""), Logfmt.parse("empty=\"\""));
        assertEquals(str("u", "caf\u00e9"), Logfmt.parse("u=caf\u00e9"));
    }

    @Test
    void parse_valuesSpellingNumbersOrBools_alsoMatchThoseTypes() throws ApiException {
        assertEquals(new Expr.Or(List.of(str("code", "500"), eq("code", new Literal.IntLit(500)))),
                Logfmt.parse("code=500"));
        assertEquals(new Expr.Or(List.of(str("code", "500"), eq("code", new Literal.IntLit(500)))),
                Logfmt.parse("code=\"500\""));
        assertEquals(new Expr.Or(List.of(str("r", "-0.25"), eq("r", new Literal.DoubleLit(-0.25)))),
                Logfmt.parse("r=-0.25"));
        assertEquals(new Expr.Or(List.of(str("big", "99999999999999999999"), eq("big", new Literal.DoubleLit(1e20)))),
                Logfmt.parse("big=99999999999999999999"));
        assertEquals(new Expr.Or(List.of(str("ok", "true"), eq("ok", new Literal.BoolLit(true)))),
                Logfmt.parse("ok=true"));
        assertEquals(str("v", "1e999"), Logfmt.parse("v=1e999"), "not finite: no number to match");
        assertEquals(str("v", "0x10"), Logfmt.parse("v=0x10"));
        assertEquals(str("v", "NaN"), Logfmt.parse("v=NaN"));
    }

    @Test
    void parse_nothing_isMatchAll() throws ApiException {
        assertEquals(new Expr.MatchAll(), Logfmt.parse(""));
        assertEquals(new Expr.MatchAll(), Logfmt.parse("  \t "));
    }

    @Test
    void parse_malformed_namesThePosition() {
        assertEquals("tags: at 1: expected '=' after the key \"a\"",
                assertThrows(ApiException.class, () -> Logfmt.parse("a")).getMessage());
        assertEquals("tags: at 0: expected a key", assertThrows(ApiException.class, () -> Logfmt.parse("=x")).getMessage());
        assertEquals("tags: at 2: the quoted value is not closed",
                assertThrows(ApiException.class, () -> Logfmt.parse("a=\"x")).getMessage());
        assertEquals("tags: at 5: expected a space after the value of \"a\"",
                assertThrows(ApiException.class, () -> Logfmt.parse("a=\"x\"y")).getMessage());
        assertEquals("tags: at 3: unknown escape \\q in a quoted value",
                assertThrows(ApiException.class, () -> Logfmt.parse("a=\"\\q\"")).getMessage());
        assertEquals("tags: at 3: expected a space after the value of \"a\"",
                assertThrows(ApiException.class, () -> Logfmt.parse("a=b=c")).getMessage());
        assertEquals(400, assertThrows(ApiException.class, () -> Logfmt.parse("a\"=b")).status());
    }
}
