package dev.needle.query.logql;

import dev.needle.query.logql.metric.MetricEval;
import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.logql.pipeline.Decolorize;
import dev.needle.query.logql.pipeline.DropLabels;
import dev.needle.query.logql.pipeline.EntryState;
import dev.needle.query.logql.pipeline.GoRegex;
import dev.needle.query.logql.pipeline.IpMatch;
import dev.needle.query.logql.pipeline.JsonParser;
import dev.needle.query.logql.pipeline.JsonPath;
import dev.needle.query.logql.pipeline.KeepLabels;
import dev.needle.query.logql.pipeline.LabelFilter;
import dev.needle.query.logql.pipeline.LabelFormat;
import dev.needle.query.logql.pipeline.LineFilter;
import dev.needle.query.logql.pipeline.LineFormat;
import dev.needle.query.logql.pipeline.LogfmtParser;
import dev.needle.query.logql.pipeline.PatternExpr;
import dev.needle.query.logql.pipeline.PatternParser;
import dev.needle.query.logql.pipeline.RegexpParser;
import dev.needle.query.logql.pipeline.Stage;
import dev.needle.query.logql.pipeline.UnpackParser;
import dev.needle.query.logql.pipeline.Units;
import dev.needle.query.logql.template.GoEscapes;
import dev.needle.query.logql.template.GoTemplate;
import dev.needle.query.logql.template.TemplateException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Parses LogQL (see {@link LogQl}): log queries with every pipeline stage of Loki's, and metric queries
 * over them ({@link MetricExpr}); a metric query of numbers and {@code vector(…)} only is worked out here.
 *
 * <pre>
 * query     = selector { stage } | metric
 * selector  = "{" [ matcher { "," matcher } ] "}"
 * matcher   = name ( "=" | "!=" | "=~" | "!~" ) string
 * stage     = ( "|=" | "!=" | "|~" | "!~" | "|>" | "!>" ) text { "or" text }     line filters
 *           | "|" ( "json" [ extractions ] | "logfmt" { "--strict" | "--keep-empty" } [ extractions ]
 *                 | "regexp" string | "pattern" string | "unpack" | "decolorize"
 *                 | "line_format" string | "label_format" format { "," format }
 *                 | ( "drop" | "keep" ) named { "," named }
 *                 | predicate )
 * text      = string | "ip" "(" string ")"
 * extractions = name [ "=" string ] { "," name [ "=" string ] }
 * format    = name "=" ( name | string );   named = name [ ( "=" | "!=" | "=~" | "!~" ) string ]
 * predicate = and { "or" and };  and = filter { ( "and" | "," | "" ) filter }
 * filter    = "(" predicate ")" | matcher | name ( "=" | "!=" ) "ip" "(" string ")"
 *           | name ( "==" | "=" | "!=" | ">" | ">=" | "<" | "<=" ) ( number | duration | bytes )
 * metric    = unary { binop [ "bool" ] [ ( "on" | "ignoring" ) labels [ ( "group_left" | "group_right" ) [ labels ] ] ] unary }
 *             binop by precedence from lowest: or; and unless; == != &gt; &gt;= &lt; &lt;=; + -; * / %; ^ (right)
 * unary     = [ "-" | "+" ] primary
 * primary   = number | "(" metric ")" | "vector" "(" metric ")"
 *           | rangeop "(" [ number "," ] range ")" [ grouping ]
 *           | vectorop [ grouping ] "(" [ number "," ] metric ")" [ grouping ]
 *           | "label_replace" "(" metric "," string "," string "," string "," string ")"
 * range     = ( selector | "(" selector ) { stage | "[" duration "]" | "offset" duration | ")"
 *             | "|" "unwrap" ( name | ( "duration" | "duration_seconds" | "bytes" ) "(" name ")" ) }
 *             with one range, label filters only after the unwrap
 * grouping  = ( "by" | "without" ) labels;  labels = "(" [ name { "," name } ] ")"
 * rangeop   = count_over_time | rate | bytes_over_time | bytes_rate | absent_over_time | sum_over_time
 *           | avg_over_time | min_over_time | max_over_time | first_over_time | last_over_time
 *           | stddev_over_time | stdvar_over_time | quantile_over_time | rate_counter
 * vectorop  = sum | avg | min | max | count | stddev | stdvar | topk | bottomk | approx_topk | sort | sort_desc
 * string    = "…" with Go's escapes | `raw`
 * </pre>
 *
 * <p>Label regexes are anchored at both ends, line-filter regexes are not, as in Loki; the syntax is
 * {@link java.util.regex.Pattern}'s, which agrees with Go's RE2 on the common subset. Which range
 * aggregations take an unwrap or a grouping is checked as Loki checks it.
 */
public final class LogQlParser {

    private static final String EMPTY_COMPATIBLE = "queries require at least one regexp or equality matcher that does"
            + " not have an empty-compatible value. For instance, app=~\".*\" does not meet this requirement, but"
            + " app=~\".+\" will";

    private final String q;
    private int pos;

    private LogQlParser(String q) {
        this.q = q;
    }

    /** The query, or the first problem with it. */
    public static LogQl parse(String query) throws LogQlParseException {
        LogQlParser p = new LogQlParser(query);
        p.skipSpace();
        if (p.atEnd()) {
            throw new LogQlParseException("syntax error: empty query");
        }
        LogQl parsed = p.peek() == '{' ? p.logQuery() : p.metric();
        p.skipSpace();
        if (!p.atEnd()) {
            throw p.error("syntax error: unexpected " + p.describeNext());
        }
        return parsed;
    }

    /** {@code s} in double quotes, with Go's escapes where needed: how a query writes it. */
    public static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private LogQl.LogQuery logQuery() throws LogQlParseException {
        List<LogQl.Matcher> selector = selector();
        List<Stage> stages = new ArrayList<>();
        while (true) {
            skipSpace();
            if (atEnd()) {
                break;
            }
            LineFilter.Op line = lineOp();
            if (line != null) {
                stages.add(lineFilter(line));
            } else if (peek() == '|') {
                pos++;
                stages.add(stage());
            } else {
                throw error("syntax error: unexpected " + describeNext() + ", expected a line filter (|=, !=, |~, !~, |>, !>)"
                        + " or a pipeline stage (| …)");
            }
        }
        return new LogQl.LogQuery(selector, stages);
    }

    private List<LogQl.Matcher> selector() throws LogQlParseException {
        expect('{');
        List<LogQl.Matcher> matchers = new ArrayList<>();
        skipSpace();
        if (peek() != '}') {
            matchers.add(matcher());
            skipSpace();
            while (peek() == ',') {
                pos++;
                matchers.add(matcher());
                skipSpace();
            }
        }
        expect('}');
        boolean selective = matchers.stream().anyMatch(m -> m.op() == LogQl.MatchOp.EQ && !m.value().isEmpty()
                || m.op() == LogQl.MatchOp.RE && !m.regex().matcher("").matches());
        if (!selective) {
            throw new LogQlParseException("parse error : " + EMPTY_COMPATIBLE);
        }
        return matchers;
    }

    /** {@code op term { or term }}: terms are strings, or {@code ip("…")} for {@code |=} and {@code !=}. */
    private LineFilter lineFilter(LineFilter.Op op) throws LogQlParseException {
        List<LineFilter.Term> terms = new ArrayList<>();
        do {
            skipSpace();
            int at = pos;
            boolean ip = word("ip");
            if (ip) {
                if (op != LineFilter.Op.CONTAINS && op != LineFilter.Op.NOT_CONTAINS) {
                    throw error(at, "ip(…) filters the line only with |= or !=");
                }
                expect('(');
            }
            String text = string();
            if (ip) {
                expect(')');
            }
            try {
                terms.add(LineFilter.Term.of(op, text, ip));
            } catch (PatternSyntaxException e) {
                throw error(at, "invalid regex " + quote(text) + ": " + e.getDescription());
            } catch (IllegalArgumentException e) {
                throw error(at, e.getMessage());
            }
            skipSpace();
        } while (word("or"));
        return new LineFilter(op, terms);
    }

    private Stage stage() throws LogQlParseException {
        skipSpace();
        int at = pos;
        if (!atEnd() && peek() != '(' && isNameStart(peek())) {
            String word = name();
            switch (word) {
                case "json" -> {
                    return json();
                }
                case "logfmt" -> {
                    return logfmt();
                }
                case "regexp" -> {
                    return regexp();
                }
                case "pattern" -> {
                    return pattern();
                }
                case "unpack" -> {
                    return new UnpackParser();
                }
                case "decolorize" -> {
                    return new Decolorize();
                }
                case "line_format" -> {
                    return lineFormat();
                }
                case "label_format" -> {
                    return labelFormat(at);
                }
                case "drop" -> {
                    return new DropLabels(namedMatchers());
                }
                case "keep" -> {
                    return new KeepLabels(namedMatchers());
                }
                case "unwrap" -> throw error(at, "syntax error: | unwrap belongs in a range aggregation such as"
                        + " sum_over_time({…} | unwrap bytes [1m])");
                default -> pos = at;
            }
        }
        return new LabelFilter(labelOr());
    }

    /** {@code json [label="path" | label {, …}]}. */
    private Stage json() throws LogQlParseException {
        List<JsonParser.Extraction> expressions = new ArrayList<>();
        for (String[] x : extractions()) {
            try {
                expressions.add(new JsonParser.Extraction(x[0], x[1], JsonPath.parse(x[1])));
            } catch (IllegalArgumentException e) {
                throw error(Integer.parseInt(x[2]), "cannot parse expression [" + x[1] + "]: " + e.getMessage());
            }
        }
        return new JsonParser(expressions);
    }

    /** {@code logfmt [--strict] [--keep-empty] [label="key" | label {, …}]}. */
    private Stage logfmt() throws LogQlParseException {
        boolean strict = false;
        boolean keepEmpty = false;
        while (true) {
            skipSpace();
            if (q.startsWith("--strict", pos)) {
                pos += "--strict".length();
                strict = true;
            } else if (q.startsWith("--keep-empty", pos)) {
                pos += "--keep-empty".length();
                keepEmpty = true;
            } else if (q.startsWith("--", pos)) {
                throw error("invalid logfmt flag " + describeNext() + ": the flags are --strict and --keep-empty");
            } else {
                break;
            }
        }
        Map<String, String> expressions = new LinkedHashMap<>();
        for (String[] x : extractions()) {
            expressions.put(x[0], x[1]);
        }
        return new LogfmtParser(strict, keepEmpty, expressions);
    }

    /** A parser's {@code label="expression"} or {@code label} list, each as label, expression and position; maybe none. */
    private List<String[]> extractions() throws LogQlParseException {
        List<String[]> out = new ArrayList<>();
        skipSpace();
        if (atEnd() || !isNameStart(peek())) {
            return out;
        }
        do {
            skipSpace();
            String label = name();
            skipSpace();
            int at = pos;
            String expression = label;
            if (peek() == '=') {
                pos++;
                skipSpace();
                at = pos;
                expression = string();
            }
            out.add(new String[] {label, expression, Integer.toString(at)});
            skipSpace();
        } while (comma());
        return out;
    }

    private Stage regexp() throws LogQlParseException {
        skipSpace();
        int at = pos;
        String text = string();
        GoRegex regex;
        try {
            regex = GoRegex.compile(text, 0);
        } catch (PatternSyntaxException e) {
            throw error(at, "invalid regexp " + quote(text) + ": " + e.getDescription());
        }
        if (!regex.hasNames()) {
            throw error(at, "at least one named capture must be supplied");
        }
        List<String> names = regex.names().stream().filter(n -> !n.isEmpty()).toList();
        if (names.size() != new HashSet<>(names).size()) {
            throw error(at, "duplicate extracted label name in " + quote(text));
        }
        return new RegexpParser(text, regex);
    }

    private Stage pattern() throws LogQlParseException {
        skipSpace();
        int at = pos;
        String text = string();
        try {
            return new PatternParser(text, PatternExpr.forParser(text));
        } catch (IllegalArgumentException e) {
            throw error(at, e.getMessage());
        }
    }

    private Stage lineFormat() throws LogQlParseException {
        skipSpace();
        int at = pos;
        String text = string();
        try {
            return new LineFormat(text, GoTemplate.parse("line", text));
        } catch (TemplateException e) {
            throw error(at, "invalid line template: " + e.getMessage());
        }
    }

    /** {@code label_format dst=src | dst="template" {, …}}; a label at most once. */
    private Stage labelFormat(int at) throws LogQlParseException {
        List<LabelFormat.Format> formats = new ArrayList<>();
        Set<String> names = new HashSet<>();
        do {
            skipSpace();
            String name = name();
            if (name.equals(EntryState.ERROR)) {
                throw error(at, name + " cannot be formatted");
            }
            if (!names.add(name)) {
                throw error(at, "multiple label name '" + name + "' not allowed in a single format operation");
            }
            expect('=');
            skipSpace();
            if (peek() == '"' || peek() == '`') {
                int templateAt = pos;
                String text = string();
                try {
                    formats.add(new LabelFormat.Format(name, null, text, GoTemplate.parse("label", text)));
                } catch (TemplateException e) {
                    throw error(templateAt, "invalid template for label '" + name + "': " + e.getMessage());
                }
            } else {
                formats.add(new LabelFormat.Format(name, name(), null, null));
            }
            skipSpace();
        } while (comma());
        return new LabelFormat(formats);
    }

    /** {@code name | name op "value" {, …}} of {@code drop} and {@code keep}. */
    private List<DropLabels.Named> namedMatchers() throws LogQlParseException {
        List<DropLabels.Named> out = new ArrayList<>();
        do {
            skipSpace();
            String name = name();
            skipSpace();
            LogQl.MatchOp op = matchOp();
            out.add(new DropLabels.Named(name, op == null ? null : matcherValue(name, op)));
            skipSpace();
        } while (comma());
        return out;
    }

    /** {@code a or b}: a label filter's alternatives, {@code and} binding closer. */
    private LabelFilter.Predicate labelOr() throws LogQlParseException {
        LabelFilter.Predicate left = labelAnd();
        while (true) {
            skipSpace();
            if (!word("or")) {
                return left;
            }
            left = new LabelFilter.Or(left, labelAnd());
        }
    }

    /** {@code a and b}, {@code a, b} and {@code a b}. */
    private LabelFilter.Predicate labelAnd() throws LogQlParseException {
        LabelFilter.Predicate left = labelPrimary();
        while (true) {
            skipSpace();
            int save = pos;
            if (word("and") || comma()) {
                left = new LabelFilter.And(left, labelPrimary());
            } else if (!atEnd() && (peek() == '(' || isNameStart(peek())) && !word("or")) {
                left = new LabelFilter.And(left, labelPrimary());
            } else {
                pos = save;
                return left;
            }
        }
    }

    private LabelFilter.Predicate labelPrimary() throws LogQlParseException {
        skipSpace();
        if (peek() == '(') {
            pos++;
            LabelFilter.Predicate inner = labelOr();
            expect(')');
            return inner;
        }
        if (atEnd() || !isNameStart(peek())) {
            throw error("syntax error: unexpected " + describeNext() + ", expected a label filter (name op value)");
        }
        String name = name();
        skipSpace();
        LabelFilter.Cmp cmp = comparison();
        if (cmp == null) {
            LogQl.MatchOp op = matchOp();
            if (op == null) {
                throw error("syntax error: unexpected " + describeNext() + " after label " + name
                        + ", expected =, !=, =~, !~, ==, >, >=, < or <=");
            }
            skipSpace();
            if ((op == LogQl.MatchOp.EQ || op == LogQl.MatchOp.NE) && q.startsWith("ip(", pos)) {
                int at = pos;
                word("ip");
                expect('(');
                String pattern = string();
                expect(')');
                try {
                    return new LabelFilter.Ip(name, op == LogQl.MatchOp.EQ, IpMatch.parse(pattern));
                } catch (IllegalArgumentException e) {
                    throw error(at, e.getMessage());
                }
            }
            if (peek() == '"' || peek() == '`') {
                return new LabelFilter.Match(matcherValue(name, op));
            }
            if (op.isRegex()) {
                throw error("syntax error: unexpected " + describeNext() + ", expected a quoted string after " + name
                        + op.symbol());
            }
            cmp = op == LogQl.MatchOp.EQ ? LabelFilter.Cmp.EQ : LabelFilter.Cmp.NE;
        }
        return unitFilter(name, cmp);
    }

    /** {@code name cmp 5}, {@code 5s} or {@code 20MB}: the literal's form says which. */
    private LabelFilter.Predicate unitFilter(String name, LabelFilter.Cmp cmp) throws LogQlParseException {
        skipSpace();
        int at = pos;
        while (!atEnd() && (Character.isLetterOrDigit(peek()) || peek() == '.' || peek() == 'µ' || peek() == 'μ'
                || (peek() == '-' || peek() == '+') && (pos == at || q.charAt(pos - 1) == 'e' || q.charAt(pos - 1) == 'E'))) {
            pos++;
        }
        String literal = q.substring(at, pos);
        if (literal.isEmpty()) {
            throw error(at, "syntax error: unexpected " + describeNext() + ", expected a number, duration or size after "
                    + name + cmp.symbol());
        }
        if (literal.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
            return new LabelFilter.Numeric(name, cmp, Double.parseDouble(literal));
        }
        try {
            return new LabelFilter.Duration(name, cmp, Units.parseDuration(literal, true));
        } catch (IllegalArgumentException notDuration) {
            try {
                if (literal.matches("[0-9.]+[a-zA-Z]+")) {
                    return new LabelFilter.Bytes(name, cmp, Units.parseBytes(literal));
                }
            } catch (IllegalArgumentException notBytes) {
                // falls through to the error below
            }
        }
        throw error(at, "syntax error: " + quote(literal) + " is not a number, a duration (5s, 1h30m) or a size (20MB,"
                + " 1.5KiB)");
    }

    /** {@code == != > >= < <=} (not {@code =} or {@code !=}, which a string may follow); null when none is next. */
    private LabelFilter.Cmp comparison() {
        for (LabelFilter.Cmp c : new LabelFilter.Cmp[] {LabelFilter.Cmp.EQ, LabelFilter.Cmp.GE, LabelFilter.Cmp.LE,
            LabelFilter.Cmp.GT, LabelFilter.Cmp.LT}) {
            if (q.startsWith(c.symbol(), pos)) {
                pos += c.symbol().length();
                return c;
            }
        }
        return null;
    }

    /** {@code =~ !~ != =}; null when none is next. */
    private LogQl.MatchOp matchOp() {
        for (LogQl.MatchOp op : new LogQl.MatchOp[] {LogQl.MatchOp.RE, LogQl.MatchOp.NRE, LogQl.MatchOp.NE,
            LogQl.MatchOp.EQ}) {
            if (q.startsWith(op.symbol(), pos)) {
                pos += op.symbol().length();
                return op;
            }
        }
        return null;
    }

    private LogQl.Matcher matcher() throws LogQlParseException {
        skipSpace();
        String name = name();
        skipSpace();
        LogQl.MatchOp op = matchOp();
        if (op == null) {
            throw error("syntax error: unexpected " + describeNext() + " after label " + name
                    + ", expected =, !=, =~ or !~");
        }
        return matcherValue(name, op);
    }

    /** The quoted value after {@code name op}. */
    private LogQl.Matcher matcherValue(String name, LogQl.MatchOp op) throws LogQlParseException {
        skipSpace();
        int valueAt = pos;
        if (!atEnd() && peek() != '"' && peek() != '`') {
            throw error("syntax error: unexpected " + describeNext() + ", expected a quoted string after " + name
                    + op.symbol());
        }
        String value = string();
        try {
            return LogQl.Matcher.of(name, op, value);
        } catch (PatternSyntaxException e) {
            throw error(valueAt, "invalid regex " + quote(value) + " for " + name + ": " + e.getDescription());
        }
    }

    /** Consumes {@code ,} if it is next. */
    private boolean comma() {
        skipSpace();
        if (peek() == ',') {
            pos++;
            return true;
        }
        return false;
    }

    /** Consumes the keyword {@code w} if it is next as a whole word, in any case ({@code OR} as Grafana writes it). */
    private boolean word(String w) {
        if (q.regionMatches(true, pos, w, 0, w.length()) && (pos + w.length() >= q.length() || !isNamePart(q.charAt(pos + w.length())))) {
            pos += w.length();
            return true;
        }
        return false;
    }

    private LineFilter.Op lineOp() {
        for (LineFilter.Op op : LineFilter.Op.values()) {
            if (q.startsWith(op.symbol(), pos)) {
                pos += op.symbol().length();
                return op;
            }
        }
        return null;
    }

    private static boolean isNameStart(char c) {
        return c < 0x80 && Character.isLetter(c) || c == '_';
    }

    private static boolean isNamePart(char c) {
        return c < 0x80 && Character.isLetterOrDigit(c) || c == '_';
    }

    private String name() throws LogQlParseException {
        int start = pos;
        if (atEnd() || !(Character.isLetter(peek()) && peek() < 0x80 || peek() == '_')) {
            throw error("syntax error: unexpected " + describeNext() + ", expected a label name");
        }
        while (!atEnd() && (peek() < 0x80 && Character.isLetterOrDigit(peek()) || peek() == '_')) {
            pos++;
        }
        return q.substring(start, pos);
    }

    /** A quoted string: {@code "…"} with Go's escapes, or {@code `…`} taken as it is. */
    private String string() throws LogQlParseException {
        skipSpace();
        int start = pos;
        if (atEnd() || peek() != '"' && peek() != '`') {
            throw error("syntax error: unexpected " + describeNext() + ", expected a quoted string");
        }
        char quote = q.charAt(pos++);
        StringBuilder out = new StringBuilder();
        while (true) {
            if (atEnd()) {
                throw error(start, "syntax error: the string is not closed");
            }
            char c = q.charAt(pos++);
            if (c == quote) {
                return out.toString();
            }
            if (c == '\\' && quote == '"') {
                escape(out);
            } else if (c == '\n' && quote == '"') {
                throw error(pos - 1, "syntax error: a newline in a string");
            } else {
                out.append(c);
            }
        }
    }

    private void escape(StringBuilder out) throws LogQlParseException {
        if (atEnd()) {
            throw error("syntax error: the string is not closed");
        }
        int at = pos - 1;
        char c = q.charAt(pos++);
        int simple = GoEscapes.simple(c);
        if (simple >= 0) {
            out.append((char) simple);
            return;
        }
        switch (c) {
            case 'x' -> out.append((char) hexDigits(2, at));
            case 'u' -> out.appendCodePoint(hexDigits(4, at));
            case 'U' -> out.appendCodePoint(hexDigits(8, at));
            default -> throw error(at, "syntax error: unknown escape \\" + c + " in a string (a regex's backslash is"
                    + " written \\\\, or the string is quoted with `…`)");
        }
    }

    private int hexDigits(int n, int at) throws LogQlParseException {
        if (pos + n > q.length()) {
            throw error(at, "syntax error: an escape needs " + n + " hex digits");
        }
        try {
            int cp = Integer.parseUnsignedInt(q.substring(pos, pos + n), 16);
            pos += n;
            if (!Character.isValidCodePoint(cp)) {
                throw error(at, "syntax error: escape beyond Unicode");
            }
            return cp;
        } catch (NumberFormatException e) {
            throw error(at, "syntax error: an escape needs " + n + " hex digits");
        }
    }

    /** A metric query: a constant when it is only numbers and {@code vector(…)}, else a {@link LogQl.Metric}. */
    private LogQl metric() throws LogQlParseException {
        MetricExpr e = expr(1);
        LogQl.Constant c = fold(e);
        return c != null ? c : new LogQl.Metric(e);
    }

    /** The arithmetic of numbers and {@code vector(n)} worked out; null when {@code e} is anything else. */
    private static LogQl.Constant fold(MetricExpr e) {
        if (e instanceof MetricExpr.Number n) {
            return new LogQl.Constant(n.value(), false);
        }
        if (e instanceof MetricExpr.VectorOf v) {
            return new LogQl.Constant(v.value(), true);
        }
        if (e instanceof MetricExpr.Binary b && !b.op().set() && !b.op().comparison()
                && b.matching().equals(MetricExpr.Matching.DEFAULT)) {
            LogQl.Constant l = fold(b.left());
            LogQl.Constant r = fold(b.right());
            if (l != null && r != null) {
                return new LogQl.Constant(MetricEval.arithmetic(b.op(), l.value(), r.value()), l.vector() || r.vector());
            }
        }
        return null;
    }

    /** Operators of at least {@code minPrecedence}, left-associative but {@code ^}. */
    private MetricExpr expr(int minPrecedence) throws LogQlParseException {
        MetricExpr left = unary();
        while (true) {
            skipSpace();
            int at = pos;
            MetricExpr.BinaryOp op = binaryOp();
            if (op == null || op.precedence() < minPrecedence) {
                pos = at;
                return left;
            }
            skipSpace();
            boolean bool = word("bool");
            if (bool && !op.comparison()) {
                throw error(at, "bool modifier can only be used on comparison operators");
            }
            MetricExpr.Matching matching = matching();
            MetricExpr right = expr(op == MetricExpr.BinaryOp.POW ? op.precedence() : op.precedence() + 1);
            if (op.set() && (left.scalar() || right.scalar())) {
                throw error(at, "set operator " + op.symbol() + " not allowed in binary scalar expression");
            }
            if (op.comparison() && !bool && left.scalar() && right.scalar()) {
                throw error(at, "comparisons between scalars must use BOOL modifier");
            }
            if (matching != MetricExpr.Matching.DEFAULT && (left.scalar() || right.scalar())) {
                throw error(at, "vector matching only allowed between instant vectors");
            }
            if (matching.card() != '1' && op.set()) {
                throw error(at, "no grouping allowed for \"" + op.symbol() + "\" operation");
            }
            left = new MetricExpr.Binary(op, left, right, bool, matching);
        }
    }

    /** The binary operator next, consumed; null when none is. */
    private MetricExpr.BinaryOp binaryOp() {
        for (MetricExpr.BinaryOp op : new MetricExpr.BinaryOp[] {MetricExpr.BinaryOp.EQ, MetricExpr.BinaryOp.NE,
            MetricExpr.BinaryOp.GE, MetricExpr.BinaryOp.LE, MetricExpr.BinaryOp.GT, MetricExpr.BinaryOp.LT,
            MetricExpr.BinaryOp.ADD, MetricExpr.BinaryOp.SUB, MetricExpr.BinaryOp.MUL, MetricExpr.BinaryOp.DIV,
            MetricExpr.BinaryOp.MOD, MetricExpr.BinaryOp.POW}) {
            if (q.startsWith(op.symbol(), pos)) {
                pos += op.symbol().length();
                return op;
            }
        }
        for (MetricExpr.BinaryOp op : new MetricExpr.BinaryOp[] {MetricExpr.BinaryOp.OR, MetricExpr.BinaryOp.AND,
            MetricExpr.BinaryOp.UNLESS}) {
            if (word(op.symbol())) {
                return op;
            }
        }
        return null;
    }

    /** {@code on(…)} or {@code ignoring(…)}, then maybe {@code group_left(…)} or {@code group_right(…)}. */
    private MetricExpr.Matching matching() throws LogQlParseException {
        skipSpace();
        boolean on = word("on");
        if (!on && !word("ignoring")) {
            return MetricExpr.Matching.DEFAULT;
        }
        List<String> labels = labelList();
        skipSpace();
        char card = '1';
        List<String> include = List.of();
        if (word("group_left") || word("group_right")) {
            card = q.startsWith("group_left", pos - "group_left".length()) ? 'l' : 'r';
            skipSpace();
            if (peek() == '(') {
                include = labelList();
            }
        }
        return new MetricExpr.Matching(on, labels, card, include);
    }

    /** {@code (a, b, …)}, maybe empty. */
    private List<String> labelList() throws LogQlParseException {
        expect('(');
        List<String> labels = new ArrayList<>();
        skipSpace();
        if (peek() != ')') {
            do {
                skipSpace();
                labels.add(name());
                skipSpace();
            } while (comma());
        }
        expect(')');
        return labels;
    }

    /** {@code by (…)} or {@code without (…)} if next; null when not. */
    private MetricExpr.Grouping grouping() throws LogQlParseException {
        skipSpace();
        boolean by = word("by");
        if (!by && !word("without")) {
            return null;
        }
        return new MetricExpr.Grouping(!by, labelList());
    }

    private MetricExpr unary() throws LogQlParseException {
        skipSpace();
        if (peek() == '-' || peek() == '+') {
            boolean minus = q.charAt(pos++) == '-';
            MetricExpr e = unary();
            if (!minus) {
                return e;
            }
            return e instanceof MetricExpr.Number n ? new MetricExpr.Number(-n.value())
                    : new MetricExpr.Binary(MetricExpr.BinaryOp.MUL, new MetricExpr.Number(-1), e, false,
                            MetricExpr.Matching.DEFAULT);
        }
        return primary();
    }

    private MetricExpr primary() throws LogQlParseException {
        skipSpace();
        if (peek() == '(') {
            pos++;
            MetricExpr inner = expr(1);
            expect(')');
            return inner;
        }
        if (Character.isDigit(peek()) || peek() == '.') {
            return new MetricExpr.Number(number());
        }
        if (!atEnd() && isNameStart(peek())) {
            int at = pos;
            String word = name();
            if (word.equals("vector")) {
                expect('(');
                MetricExpr inner = expr(1);
                expect(')');
                LogQl.Constant c = fold(inner);
                if (c == null || c.vector()) {
                    throw error(at, "syntax error: vector(…) takes a number");
                }
                return new MetricExpr.VectorOf(c.value());
            }
            if (word.equals("label_replace")) {
                return labelReplace(at);
            }
            MetricExpr.RangeOp range = MetricExpr.RangeOp.of(word);
            if (range != null) {
                return rangeAggregation(range, at);
            }
            MetricExpr.VectorOp vector = MetricExpr.VectorOp.of(word);
            if (vector != null) {
                return vectorAggregation(vector, at);
            }
            throw error(at, "syntax error: unexpected IDENTIFIER " + quote(word) + ", expected a range aggregation"
                    + " (count_over_time, rate, …), a vector aggregation (sum, avg, …), vector(…), label_replace, a"
                    + " number or (");
        }
        if (peek() == '{') {
            throw error("syntax error: a log query is not a number: wrap it in a range aggregation such as"
                    + " count_over_time({…}[1m])");
        }
        throw error("syntax error: unexpected " + describeNext() + ", expected a number, vector(…), ( or {");
    }

    /** {@code op([φ,] log [range] [offset d]) [by|without (…)]}, checked as Loki's {@code RangeAggregationExpr.validate}. */
    private MetricExpr rangeAggregation(MetricExpr.RangeOp op, int at) throws LogQlParseException {
        expect('(');
        double param = Double.NaN;
        if (op == MetricExpr.RangeOp.QUANTILE) {
            skipSpace();
            param = number();
            expect(',');
        }
        skipSpace();
        boolean parenthesized = peek() == '(';
        if (parenthesized) {
            pos++;
            skipSpace();
        }
        List<LogQl.Matcher> selector = selector();
        List<Stage> stages = new ArrayList<>();
        MetricExpr.Unwrap unwrap = null;
        List<Stage> after = new ArrayList<>();
        long range = -1;
        long offset = 0;
        while (true) {
            skipSpace();
            if (peek() == '[' && range < 0) {
                range = rangeDuration();
                continue;
            }
            if (parenthesized && peek() == ')') {
                pos++;
                parenthesized = false;
                continue;
            }
            if (range >= 0 && word("offset")) {
                offset = durationWord();
                continue;
            }
            LineFilter.Op line = lineOp();
            if (line != null) {
                if (unwrap != null) {
                    throw error("syntax error: only label filters may follow | unwrap");
                }
                stages.add(lineFilter(line));
                continue;
            }
            if (peek() != '|') {
                break;
            }
            pos++;
            skipSpace();
            int stageAt = pos;
            if (word("unwrap")) {
                if (unwrap != null) {
                    throw error(stageAt, "syntax error: a range aggregation unwraps one label");
                }
                unwrap = unwrap();
                continue;
            }
            Stage stage = stage();
            if (unwrap == null) {
                stages.add(stage);
            } else if (stage instanceof LabelFilter) {
                after.add(stage);
            } else {
                throw error(stageAt, "syntax error: only label filters may follow | unwrap");
            }
        }
        if (parenthesized) {
            throw error("syntax error: unexpected " + describeNext() + ", expected )");
        }
        if (range < 0) {
            throw error("syntax error: unexpected " + describeNext() + ", expected a range such as [5m]");
        }
        expect(')');
        MetricExpr.Grouping grouping = grouping();
        LogQl.LogQuery log = new LogQl.LogQuery(selector, stages);
        if (unwrap != null) {
            unwrap = new MetricExpr.Unwrap(unwrap.label(), unwrap.conversion(), after);
        }
        validate(op, unwrap != null, grouping != null, at);
        return new MetricExpr.Range(op, param, log, unwrap, range, offset, grouping);
    }

    /** Which range aggregations take an unwrap or a grouping, as Loki says. */
    private void validate(MetricExpr.RangeOp op, boolean unwrapped, boolean grouped, int at)
            throws LogQlParseException {
        boolean groupable = switch (op) {
            case AVG, STDDEV, STDVAR, QUANTILE, MAX, MIN, FIRST, LAST -> true;
            default -> false;
        };
        if (grouped && !groupable) {
            throw error(at, "grouping not allowed for " + op.word() + " aggregation");
        }
        boolean withUnwrap = switch (op) {
            case COUNT, BYTES, BYTES_RATE -> false;
            default -> true;
        };
        boolean withoutUnwrap = switch (op) {
            case COUNT, BYTES, BYTES_RATE, RATE, ABSENT -> true;
            default -> false;
        };
        if (unwrapped && !withUnwrap) {
            throw error(at, "invalid aggregation " + op.word() + " with unwrap");
        }
        if (!unwrapped && !withoutUnwrap) {
            throw error(at, "invalid aggregation " + op.word() + " without unwrap");
        }
    }

    /** {@code label}, {@code duration(label)}, {@code duration_seconds(label)} or {@code bytes(label)} after unwrap. */
    private MetricExpr.Unwrap unwrap() throws LogQlParseException {
        skipSpace();
        String name = name();
        MetricExpr.Conversion conversion = switch (name) {
            case "duration", "duration_seconds" -> MetricExpr.Conversion.DURATION;
            case "bytes" -> MetricExpr.Conversion.BYTES;
            default -> MetricExpr.Conversion.FLOAT;
        };
        skipSpace();
        if (conversion == MetricExpr.Conversion.FLOAT || peek() != '(') {
            return new MetricExpr.Unwrap(name, MetricExpr.Conversion.FLOAT, List.of());
        }
        expect('(');
        skipSpace();
        String label = name();
        expect(')');
        return new MetricExpr.Unwrap(label, conversion, List.of());
    }

    /** {@code [5m]}: the range in nanoseconds, more than zero. */
    private long rangeDuration() throws LogQlParseException {
        expect('[');
        skipSpace();
        long d = durationWord();
        expect(']');
        if (d <= 0) {
            throw error("syntax error: the range must be more than zero");
        }
        return d;
    }

    /** A duration literal such as {@code 5m} or {@code 1h30m}, in nanoseconds. */
    private long durationWord() throws LogQlParseException {
        skipSpace();
        int at = pos;
        if (peek() == '-') {
            pos++;
        }
        while (!atEnd() && (Character.isLetterOrDigit(peek()) || peek() == '.' || peek() == 'µ')) {
            pos++;
        }
        String text = q.substring(at, pos);
        try {
            return Units.parseDuration(text, true);
        } catch (IllegalArgumentException e) {
            throw error(at, "syntax error: " + e.getMessage());
        }
    }

    /** {@code op [by|without (…)] ([k,] expr) [by|without (…)]}. */
    private MetricExpr vectorAggregation(MetricExpr.VectorOp op, int at) throws LogQlParseException {
        MetricExpr.Grouping grouping = grouping();
        expect('(');
        int k = 0;
        if (op == MetricExpr.VectorOp.TOPK || op == MetricExpr.VectorOp.BOTTOMK
                || op == MetricExpr.VectorOp.APPROX_TOPK) {
            skipSpace();
            int kAt = pos;
            double n = number();
            if (n != Math.rint(n) || n < 1 || n > Integer.MAX_VALUE) {
                throw error(kAt, "syntax error: invalid parameter for " + op.word() + ": " + LokiEntry.number(n)
                        + " (a whole number of at least 1)");
            }
            k = (int) n;
            expect(',');
        }
        MetricExpr inner = expr(1);
        expect(')');
        if (grouping == null) {
            grouping = grouping();
        } else if (grouping() != null) {
            throw error(at, "syntax error: " + op.word() + " is grouped twice");
        }
        if (grouping != null && (op == MetricExpr.VectorOp.SORT || op == MetricExpr.VectorOp.SORT_DESC
                || op == MetricExpr.VectorOp.APPROX_TOPK)) {
            throw error(at, "grouping not allowed for " + op.word() + " aggregation");
        }
        if (inner.scalar()) {
            throw error(at, "syntax error: " + op.word() + " aggregates a vector, not a number");
        }
        return new MetricExpr.Vector(op, k, inner, grouping);
    }

    /** {@code label_replace(v, "dst", "replacement", "src", "regex")}. */
    private MetricExpr labelReplace(int at) throws LogQlParseException {
        expect('(');
        MetricExpr inner = expr(1);
        expect(',');
        String dst = string();
        expect(',');
        String replacement = string();
        expect(',');
        String src = string();
        expect(',');
        skipSpace();
        int regexAt = pos;
        String regex = string();
        expect(')');
        if (inner.scalar()) {
            throw error(at, "syntax error: label_replace takes a vector, not a number");
        }
        try {
            return new MetricExpr.LabelReplace(inner, dst, replacement, src,
                    Pattern.compile("^(?:" + regex + ")$", Pattern.DOTALL));
        } catch (PatternSyntaxException e) {
            throw error(regexAt, "invalid regex " + quote(regex) + ": " + e.getDescription());
        }
    }

    private double number() throws LogQlParseException {
        int start = pos;
        while (!atEnd() && (Character.isDigit(peek()) || peek() == '.' || peek() == 'e' || peek() == 'E'
                || (peek() == '+' || peek() == '-') && pos > start && (q.charAt(pos - 1) == 'e' || q.charAt(pos - 1) == 'E'))) {
            pos++;
        }
        try {
            return Double.parseDouble(q.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error(start, "syntax error: not a number: " + describeNext());
        }
    }

    private void expect(char c) throws LogQlParseException {
        skipSpace();
        if (peek() != c) {
            throw error("syntax error: unexpected " + describeNext() + ", expected " + c);
        }
        pos++;
    }

    private void skipSpace() {
        while (!atEnd() && Character.isWhitespace(q.charAt(pos))) {
            pos++;
        }
    }

    private boolean atEnd() {
        return pos >= q.length();
    }

    /** The next character, or 0 at the end. */
    private char peek() {
        return atEnd() ? 0 : q.charAt(pos);
    }

    private String describeNext() {
        if (atEnd()) {
            return "end of query";
        }
        int end = Math.min(q.length(), pos + 12);
        return quote(q.substring(pos, end)) + (end < q.length() ? "…" : "");
    }

    private LogQlParseException error(String message) {
        return error(pos, message);
    }

    private LogQlParseException error(int at, String message) {
        return new LogQlParseException(q, at, message);
    }
}
