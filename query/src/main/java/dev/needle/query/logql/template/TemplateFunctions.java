package dev.needle.query.logql.template;

import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.pipeline.GoRegex;
import dev.needle.query.logql.pipeline.Units;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.PatternSyntaxException;

/**
 * The functions a template may call: Go's built-ins ({@code and or not eq ne lt le gt ge len index
 * print printf println}), Loki's own ({@code __line__ __timestamp__ ToLower ToUpper Replace Trim
 * TrimLeft TrimRight TrimPrefix TrimSuffix TrimSpace regexReplaceAll regexReplaceAllLiteral count
 * urlencode urldecode bytes duration duration_seconds unixEpochMillis unixEpochNanos toDateInZone
 * unixToTime alignLeft alignRight b64dec}) and the Sprig functions Loki takes ({@code b64enc lower
 * upper title trunc substr contains hasPrefix hasSuffix indent nindent replace repeat trim trimAll
 * trimSuffix trimPrefix int float64 add sub mul div mod addf subf mulf divf max min maxf minf ceil
 * floor round date toDate now unixEpoch default}). Loki's {@code fromJson} is refused by name.
 */
final class TemplateFunctions {

    private interface Fn {
        Object call(List<Object> args, GoTemplate.Input input) throws TemplateException;
    }

    private static final Map<String, Fn> FUNCTIONS = new TreeMap<>();
    private static final Set<String> UNSUPPORTED = Set.of("fromJson");

    static {
        // Go's built-ins.
        FUNCTIONS.put("and", (a, in) -> {
            atLeast(a, 1);
            for (Object v : a) {
                if (!truth(v)) {
                    return v;
                }
            }
            return a.get(a.size() - 1);
        });
        FUNCTIONS.put("or", (a, in) -> {
            atLeast(a, 1);
            for (Object v : a) {
                if (truth(v)) {
                    return v;
                }
            }
            return a.get(a.size() - 1);
        });
        FUNCTIONS.put("not", (a, in) -> !truth(one(a)));
        FUNCTIONS.put("eq", (a, in) -> {
            atLeast(a, 2);
            for (Object v : a.subList(1, a.size())) {
                if (compare(a.get(0), v, true) == 0) {
                    return true;
                }
            }
            return false;
        });
        FUNCTIONS.put("ne", (a, in) -> compare(arg(a, 0, 2), a.get(1), true) != 0);
        FUNCTIONS.put("lt", (a, in) -> compare(arg(a, 0, 2), a.get(1), false) < 0);
        FUNCTIONS.put("le", (a, in) -> compare(arg(a, 0, 2), a.get(1), false) <= 0);
        FUNCTIONS.put("gt", (a, in) -> compare(arg(a, 0, 2), a.get(1), false) > 0);
        FUNCTIONS.put("ge", (a, in) -> compare(arg(a, 0, 2), a.get(1), false) >= 0);
        FUNCTIONS.put("len", (a, in) -> {
            Object v = one(a);
            if (v instanceof String s) {
                return (long) s.getBytes(StandardCharsets.UTF_8).length;
            }
            if (v instanceof Map<?, ?> m) {
                return (long) m.size();
            }
            throw new TemplateException("len of type " + GoFormat.typeName(v));
        });
        FUNCTIONS.put("index", (a, in) -> {
            atLeast(a, 1);
            Object v = a.get(0);
            for (Object key : a.subList(1, a.size())) {
                if (!(v instanceof Map<?, ?> m)) {
                    throw new TemplateException("can't index item of type " + GoFormat.typeName(v));
                }
                Object got = m.get(str(key));
                v = got == null ? "" : got;
            }
            return v;
        });
        FUNCTIONS.put("print", (a, in) -> GoFormat.printAll(a));
        FUNCTIONS.put("println", (a, in) -> {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < a.size(); i++) {
                out.append(i == 0 ? "" : " ").append(GoFormat.print(a.get(i)));
            }
            return out.append('\n').toString();
        });
        FUNCTIONS.put("printf", (a, in) -> GoFormat.sprintf(str(arg(a, 0, 1)), a.subList(1, a.size())));

        // Loki's.
        FUNCTIONS.put("__line__", (a, in) -> {
            exactly(a, 0);
            return in.line();
        });
        FUNCTIONS.put("__timestamp__", (a, in) -> {
            exactly(a, 0);
            return GoTime.ofUnixNanos(in.timeUnixNano());
        });
        FUNCTIONS.put("ToLower", (a, in) -> str(one(a)).toLowerCase(Locale.ROOT));
        FUNCTIONS.put("ToUpper", (a, in) -> str(one(a)).toUpperCase(Locale.ROOT));
        FUNCTIONS.put("Replace", (a, in) -> {
            exactly(a, 4);
            return replace(str(a.get(0)), str(a.get(1)), str(a.get(2)), integer(a.get(3)));
        });
        FUNCTIONS.put("Trim", (a, in) -> trim(str(arg(a, 0, 2)), str(a.get(1)), true, true));
        FUNCTIONS.put("TrimLeft", (a, in) -> trim(str(arg(a, 0, 2)), str(a.get(1)), true, false));
        FUNCTIONS.put("TrimRight", (a, in) -> trim(str(arg(a, 0, 2)), str(a.get(1)), false, true));
        FUNCTIONS.put("TrimPrefix", (a, in) -> trimPrefix(str(arg(a, 0, 2)), str(a.get(1))));
        FUNCTIONS.put("TrimSuffix", (a, in) -> trimSuffix(str(arg(a, 0, 2)), str(a.get(1))));
        FUNCTIONS.put("TrimSpace", (a, in) -> str(one(a)).strip());
        FUNCTIONS.put("regexReplaceAll", (a, in) -> {
            exactly(a, 3);
            return replaceAll(regex(str(a.get(0))), str(a.get(1)), str(a.get(2)));
        });
        FUNCTIONS.put("regexReplaceAllLiteral", (a, in) -> {
            exactly(a, 3);
            return regex(str(a.get(0))).pattern().matcher(str(a.get(1))).replaceAll(Matcher.quoteReplacement(str(a.get(2))));
        });
        FUNCTIONS.put("count", (a, in) -> {
            exactly(a, 2);
            return regex(str(a.get(0))).pattern().matcher(str(a.get(1))).results().count();
        });
        FUNCTIONS.put("urlencode", (a, in) -> URLEncoder.encode(str(one(a)), StandardCharsets.UTF_8));
        FUNCTIONS.put("urldecode", (a, in) -> {
            try {
                return URLDecoder.decode(str(one(a)), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new TemplateException("invalid URL escape in " + LogQlParser.quote(str(a.get(0))));
            }
        });
        FUNCTIONS.put("bytes", (a, in) -> {
            try {
                return (double) Units.parseBytes(str(one(a)));
            } catch (IllegalArgumentException e) {
                throw new TemplateException(e.getMessage());
            }
        });
        Fn duration = (a, in) -> {
            try {
                return Units.parseDuration(str(one(a)), false) / 1e9;
            } catch (IllegalArgumentException e) {
                throw new TemplateException(e.getMessage());
            }
        };
        FUNCTIONS.put("duration", duration);
        FUNCTIONS.put("duration_seconds", duration);
        FUNCTIONS.put("unixEpochMillis", (a, in) -> Long.toString(Math.floorDiv(time(one(a)).unixNanos(), 1_000_000L)));
        FUNCTIONS.put("unixEpochNanos", (a, in) -> Long.toString(time(one(a)).unixNanos()));
        FUNCTIONS.put("toDateInZone", (a, in) -> {
            exactly(a, 3);
            ZoneId zone;
            try {
                zone = ZoneId.of(str(a.get(1)));
            } catch (DateTimeException e) {
                zone = GoTime.UTC;
            }
            try {
                return GoTime.parse(str(a.get(0)), str(a.get(2)), zone);
            } catch (TemplateException e) {
                return zeroTime();
            }
        });
        FUNCTIONS.put("unixToTime", (a, in) -> {
            String epoch = str(one(a));
            long v;
            try {
                v = Long.parseLong(epoch);
            } catch (NumberFormatException e) {
                throw new TemplateException("unable to parse time '" + epoch + "': strconv.ParseInt: parsing "
                        + LogQlParser.quote(epoch) + ": invalid syntax");
            }
            return switch (epoch.length()) {
                case 5 -> GoTime.ofUnixNanos(v * 86_400L * 1_000_000_000L);
                case 10 -> GoTime.ofUnixNanos(v * 1_000_000_000L);
                case 13 -> GoTime.ofUnixNanos(v * 1_000_000L);
                case 16 -> GoTime.ofUnixNanos(v * 1_000L);
                case 19 -> GoTime.ofUnixNanos(v);
                default -> throw new TemplateException("unable to parse time '" + epoch + "': %!w(<nil>)");
            };
        });
        FUNCTIONS.put("alignLeft", (a, in) -> align(integer(arg(a, 0, 2)), str(a.get(1)), true));
        FUNCTIONS.put("alignRight", (a, in) -> align(integer(arg(a, 0, 2)), str(a.get(1)), false));
        FUNCTIONS.put("b64dec", (a, in) -> {
            String v = str(one(a));
            int remainder = v.length() % 4;
            if (remainder != 0 && remainder != 1) {
                v += "=".repeat(4 - remainder);
            }
            try {
                return new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return "illegal base64 data at input byte " + illegalBase64At(v);
            }
        });

        // Sprig's, as Loki takes them.
        FUNCTIONS.put("b64enc", (a, in) -> Base64.getEncoder().encodeToString(str(one(a)).getBytes(StandardCharsets.UTF_8)));
        FUNCTIONS.put("lower", (a, in) -> str(one(a)).toLowerCase(Locale.ROOT));
        FUNCTIONS.put("upper", (a, in) -> str(one(a)).toUpperCase(Locale.ROOT));
        FUNCTIONS.put("title", (a, in) -> title(str(one(a))));
        FUNCTIONS.put("trunc", (a, in) -> trunc(integer(arg(a, 0, 2)), str(a.get(1))));
        FUNCTIONS.put("substr", (a, in) -> {
            exactly(a, 3);
            return substr(integer(a.get(0)), integer(a.get(1)), str(a.get(2)));
        });
        FUNCTIONS.put("contains", (a, in) -> str(arg(a, 1, 2)).contains(str(a.get(0))));
        FUNCTIONS.put("hasPrefix", (a, in) -> str(arg(a, 1, 2)).startsWith(str(a.get(0))));
        FUNCTIONS.put("hasSuffix", (a, in) -> str(arg(a, 1, 2)).endsWith(str(a.get(0))));
        FUNCTIONS.put("indent", (a, in) -> indent(integer(arg(a, 0, 2)), str(a.get(1))));
        FUNCTIONS.put("nindent", (a, in) -> "\n" + indent(integer(arg(a, 0, 2)), str(a.get(1))));
        FUNCTIONS.put("replace", (a, in) -> {
            exactly(a, 3);
            return replace(str(a.get(2)), str(a.get(0)), str(a.get(1)), -1);
        });
        FUNCTIONS.put("repeat", (a, in) -> {
            long n = integer(arg(a, 0, 2));
            if (n < 0) {
                throw new TemplateException("strings: negative Repeat count");
            }
            return str(a.get(1)).repeat((int) n);
        });
        FUNCTIONS.put("trim", (a, in) -> str(one(a)).strip());
        FUNCTIONS.put("trimAll", (a, in) -> trim(str(arg(a, 1, 2)), str(a.get(0)), true, true));
        FUNCTIONS.put("trimSuffix", (a, in) -> trimSuffix(str(arg(a, 1, 2)), str(a.get(0))));
        FUNCTIONS.put("trimPrefix", (a, in) -> trimPrefix(str(arg(a, 1, 2)), str(a.get(0))));
        FUNCTIONS.put("int", (a, in) -> toInt64(one(a)));
        FUNCTIONS.put("float64", (a, in) -> toFloat64(one(a)));
        FUNCTIONS.put("add", (a, in) -> {
            long sum = 0;
            for (Object v : a) {
                sum += toInt64(v);
            }
            return sum;
        });
        FUNCTIONS.put("sub", (a, in) -> toInt64(arg(a, 0, 2)) - toInt64(a.get(1)));
        FUNCTIONS.put("mul", (a, in) -> {
            atLeast(a, 1);
            long product = 1;
            for (Object v : a) {
                product *= toInt64(v);
            }
            return product;
        });
        FUNCTIONS.put("div", (a, in) -> {
            long divisor = toInt64(arg(a, 1, 2));
            if (divisor == 0) {
                throw new TemplateException("runtime error: integer divide by zero");
            }
            return toInt64(a.get(0)) / divisor;
        });
        FUNCTIONS.put("mod", (a, in) -> {
            long divisor = toInt64(arg(a, 1, 2));
            if (divisor == 0) {
                throw new TemplateException("runtime error: integer divide by zero");
            }
            return toInt64(a.get(0)) % divisor;
        });
        FUNCTIONS.put("addf", (a, in) -> fold(a, BigDecimal::add));
        FUNCTIONS.put("subf", (a, in) -> fold(a, BigDecimal::subtract));
        FUNCTIONS.put("mulf", (a, in) -> fold(a, BigDecimal::multiply));
        FUNCTIONS.put("divf", (a, in) -> {
            atLeast(a, 1);
            double v = toFloat64(a.get(0));
            for (Object d : a.subList(1, a.size())) {
                v /= toFloat64(d);
            }
            return v;
        });
        FUNCTIONS.put("max", (a, in) -> {
            long m = toInt64(arg(a, 0, 1));
            for (Object v : a) {
                m = Math.max(m, toInt64(v));
            }
            return m;
        });
        FUNCTIONS.put("min", (a, in) -> {
            long m = toInt64(arg(a, 0, 1));
            for (Object v : a) {
                m = Math.min(m, toInt64(v));
            }
            return m;
        });
        FUNCTIONS.put("maxf", (a, in) -> {
            double m = toFloat64(arg(a, 0, 1));
            for (Object v : a) {
                m = Math.max(m, toFloat64(v));
            }
            return m;
        });
        FUNCTIONS.put("minf", (a, in) -> {
            double m = toFloat64(arg(a, 0, 1));
            for (Object v : a) {
                m = Math.min(m, toFloat64(v));
            }
            return m;
        });
        FUNCTIONS.put("ceil", (a, in) -> Math.ceil(toFloat64(one(a))));
        FUNCTIONS.put("floor", (a, in) -> Math.floor(toFloat64(one(a))));
        FUNCTIONS.put("round", (a, in) -> {
            atLeast(a, 2);
            double v = toFloat64(a.get(0));
            long places = toInt64(a.get(1));
            double half = a.size() > 2 ? toFloat64(a.get(2)) : 0.5;
            double pow = Math.pow(10, places);
            double digit = pow * v;
            double rounded = digit % 1 >= half ? Math.ceil(digit) : Math.floor(digit);
            return rounded / pow;
        });
        FUNCTIONS.put("date", (a, in) -> {
            exactly(a, 2);
            Object d = a.get(1);
            GoTime t = d instanceof GoTime g ? g : d instanceof Long n ? GoTime.ofUnixNanos(n * 1_000_000_000L)
                    : GoTime.ofUnixNanos(System.currentTimeMillis() * 1_000_000L);
            return t.format(str(a.get(0)));
        });
        FUNCTIONS.put("toDate", (a, in) -> {
            exactly(a, 2);
            try {
                return GoTime.parse(str(a.get(0)), str(a.get(1)), GoTime.UTC);
            } catch (TemplateException e) {
                return zeroTime();
            }
        });
        FUNCTIONS.put("now", (a, in) -> {
            exactly(a, 0);
            Instant now = Instant.now();
            return GoTime.ofUnixNanos(now.getEpochSecond() * 1_000_000_000L + now.getNano());
        });
        FUNCTIONS.put("unixEpoch", (a, in) -> Long.toString(Math.floorDiv(time(one(a)).unixNanos(), 1_000_000_000L)));
        FUNCTIONS.put("default", (a, in) -> {
            atLeast(a, 1);
            return a.size() < 2 || !truth(a.get(1)) ? a.get(0) : a.get(1);
        });
    }

    private TemplateFunctions() {
    }

    /** Whether a template may call {@code name}. */
    static boolean exists(String name) {
        return FUNCTIONS.containsKey(name);
    }

    /** Whether {@code name} is a function of Loki's templates that needle does not run. */
    static boolean unsupported(String name) {
        return UNSUPPORTED.contains(name);
    }

    static Object call(String name, List<Object> args, GoTemplate.Input input) throws TemplateException {
        return FUNCTIONS.get(name).call(args, input);
    }

    /** Go's truth of a value: false, 0, nil, an empty string or map are false. */
    static boolean truth(Object v) {
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s) {
            return !s.isEmpty();
        }
        if (v instanceof Long n) {
            return n != 0;
        }
        if (v instanceof Double d) {
            return d != 0;
        }
        if (v instanceof Map<?, ?> m) {
            return !m.isEmpty();
        }
        return true;
    }

    private static int compare(Object a, Object b, boolean equality) throws TemplateException {
        if (a instanceof String x && b instanceof String y) {
            return x.compareTo(y);
        }
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        if (a instanceof Double x && b instanceof Double y) {
            return Double.compare(x, y);
        }
        if (equality && a instanceof Boolean x && b instanceof Boolean y) {
            return x.equals(y) ? 0 : 1;
        }
        if (a == null || b == null) {
            if (equality) {
                return a == b ? 0 : 1;
            }
            throw new TemplateException("invalid type for comparison");
        }
        throw new TemplateException("incompatible types for comparison");
    }

    private static Object one(List<Object> a) throws TemplateException {
        exactly(a, 1);
        return a.get(0);
    }

    /** Argument {@code i}, after checking there are exactly {@code n} (or, for n = 1 on a variadic, at least one). */
    private static Object arg(List<Object> a, int i, int n) throws TemplateException {
        if (n == 1) {
            atLeast(a, 1);
        } else {
            exactly(a, n);
        }
        return a.get(i);
    }

    private static void exactly(List<Object> a, int n) throws TemplateException {
        if (a.size() != n) {
            throw new TemplateException("wrong number of args: want " + n + " got " + a.size());
        }
    }

    private static void atLeast(List<Object> a, int n) throws TemplateException {
        if (a.size() < n) {
            throw new TemplateException("wrong number of args: want at least " + n + " got " + a.size());
        }
    }

    private static String str(Object v) throws TemplateException {
        if (v instanceof String s) {
            return s;
        }
        throw new TemplateException("wrong type for value; expected string; got " + GoFormat.typeName(v));
    }

    private static long integer(Object v) throws TemplateException {
        if (v instanceof Long n) {
            return n;
        }
        throw new TemplateException("wrong type for value; expected int; got " + GoFormat.typeName(v));
    }

    private static GoTime time(Object v) throws TemplateException {
        if (v instanceof GoTime t) {
            return t;
        }
        throw new TemplateException("wrong type for value; expected time.Time; got " + GoFormat.typeName(v));
    }

    private static GoTime zeroTime() {
        return new GoTime(ZonedDateTime.of(1, 1, 1, 0, 0, 0, 0, GoTime.UTC));
    }

    /** Sprig's {@code toInt64} (through cast): strings in any Go base, floats truncated, anything else 0. */
    static long toInt64(Object v) {
        if (v instanceof Long n) {
            return n;
        }
        if (v instanceof Double d) {
            return (long) (double) d;
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof String s) {
            String t = s.matches("[+-]?[0-9]+\\.0*") ? s.substring(0, s.indexOf('.')) : s;
            try {
                boolean negative = t.startsWith("-");
                String u = t.replaceFirst("^[+-]", "");
                long value = u.startsWith("0x") || u.startsWith("0X") ? Long.parseLong(u.substring(2), 16)
                        : u.startsWith("0b") || u.startsWith("0B") ? Long.parseLong(u.substring(2), 2)
                        : u.startsWith("0o") || u.startsWith("0O") ? Long.parseLong(u.substring(2), 8)
                        : u.length() > 1 && u.startsWith("0") ? Long.parseLong(u.substring(1), 8) : Long.parseLong(u);
                return negative ? -value : value;
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    /** Sprig's {@code toFloat64} (through cast): strings as Go parses them, anything else 0. */
    static double toFloat64(Object v) {
        if (v instanceof Double d) {
            return d;
        }
        if (v instanceof Long n) {
            return n;
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof String s) {
            try {
                return Units.parseFloat(s);
            } catch (IllegalArgumentException e) {
                return 0;
            }
        }
        return 0;
    }

    private static double fold(List<Object> a, java.util.function.BinaryOperator<BigDecimal> op) throws TemplateException {
        atLeast(a, 1);
        BigDecimal v = new BigDecimal(Double.toString(toFloat64(a.get(0))));
        for (Object o : a.subList(1, a.size())) {
            v = op.apply(v, new BigDecimal(Double.toString(toFloat64(o))));
        }
        return v.doubleValue();
    }

    private static GoRegex regex(String regex) throws TemplateException {
        try {
            return GoRegex.compile(regex, 0);
        } catch (PatternSyntaxException e) {
            throw new TemplateException("error parsing regexp: " + e.getDescription() + ": `" + regex + "`");
        }
    }

    /** Every match of the regex replaced by {@code repl} with Go's references expanded ({@link #expand}). */
    private static String replaceAll(GoRegex regex, String s, String repl) {
        Matcher m = regex.pattern().matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(expand(m, repl, regex)));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * Go's {@code Regexp.Expand}: {@code $1}, {@code ${1}}, {@code $name} and {@code ${name}} give the
     * group (a name is the longest run of letters, digits and {@code _}), {@code $$} a {@code $}; a
     * group that does not exist or did not take part gives nothing.
     */
    private static String expand(Matcher m, String repl, GoRegex regex) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < repl.length(); i++) {
            char c = repl.charAt(i);
            if (c != '$' || i + 1 >= repl.length()) {
                out.append(c);
                continue;
            }
            if (repl.charAt(i + 1) == '$') {
                out.append('$');
                i++;
                continue;
            }
            String name;
            int next;
            if (repl.charAt(i + 1) == '{') {
                int close = repl.indexOf('}', i + 2);
                if (close < 0) {
                    out.append(c);
                    continue;
                }
                name = repl.substring(i + 2, close);
                next = close + 1;
            } else {
                int end = i + 1;
                while (end < repl.length() && (Character.isLetterOrDigit(repl.charAt(end)) || repl.charAt(end) == '_')) {
                    end++;
                }
                name = repl.substring(i + 1, end);
                next = end;
            }
            if (name.isEmpty()) {
                out.append(c);
                continue;
            }
            int group = name.matches("[0-9]+") ? Integer.parseInt(name) : regex.names().indexOf(name);
            if (group >= 0 && group <= m.groupCount() && m.group(group) != null) {
                out.append(m.group(group));
            }
            i = next - 1;
        }
        return out.toString();
    }

    private static String replace(String s, String old, String replacement, long n) {
        if (n < 0) {
            return s.replace(old, replacement);
        }
        StringBuilder out = new StringBuilder();
        int at = 0;
        for (long done = 0; done < n; done++) {
            int found = old.isEmpty() ? (at <= s.length() ? at : -1) : s.indexOf(old, at);
            if (found < 0 || old.isEmpty() && done > 0 && found >= s.length()) {
                break;
            }
            out.append(s, at, found).append(replacement);
            if (old.isEmpty()) {
                if (found < s.length()) {
                    out.append(s.charAt(found));
                }
                at = found + 1;
            } else {
                at = found + old.length();
            }
        }
        if (at < s.length()) {
            out.append(s.substring(at));
        }
        return out.toString();
    }

    private static String trim(String s, String cutset, boolean left, boolean right) {
        int start = 0;
        int end = s.length();
        while (left && start < end && cutset.indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (right && end > start && cutset.indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }

    private static String trimPrefix(String s, String prefix) {
        return s.startsWith(prefix) ? s.substring(prefix.length()) : s;
    }

    private static String trimSuffix(String s, String suffix) {
        return s.endsWith(suffix) ? s.substring(0, s.length() - suffix.length()) : s;
    }

    private static String trunc(long c, String s) {
        int[] runes = s.codePoints().toArray();
        int l = runes.length;
        if (c < 0 && l + c > 0) {
            return new String(runes, (int) (l + c), (int) -c);
        }
        if (c >= 0 && l > c) {
            return new String(runes, 0, (int) c);
        }
        return s;
    }

    private static String substr(long start, long end, String s) {
        if (start < 0) {
            return s.substring(0, (int) Math.min(Math.max(end, 0), s.length()));
        }
        if (end < 0 || end > s.length()) {
            return start <= s.length() ? s.substring((int) start) : "";
        }
        return start <= end ? s.substring((int) start, (int) end) : "";
    }

    private static String align(long count, String src, boolean left) {
        int[] runes = src.codePoints().toArray();
        int l = runes.length;
        if (count < 0 || count == l) {
            return src;
        }
        int pad = (int) (count - l);
        if (pad > 0) {
            return left ? src + " ".repeat(pad) : " ".repeat(pad) + src;
        }
        return left ? new String(runes, 0, (int) count) : new String(runes, (int) (l - count), (int) count);
    }

    private static String indent(long spaces, String v) {
        String pad = " ".repeat((int) Math.max(0, spaces));
        return pad + v.replace("\n", "\n" + pad);
    }

    private static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean start = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(start ? Character.toTitleCase(c) : c);
            start = !Character.isLetterOrDigit(c) && c != '_' && c != '\'';
        }
        return out.toString();
    }

    private static int illegalBase64At(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 0x80 || c == '+' || c == '/' || c == '=')) {
                return i;
            }
        }
        return v.length();
    }
}
