package dev.needle.query.logql.template;

import dev.needle.query.logql.LogQlParser;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** How Go's {@code fmt} writes a template's values: {@code Sprint} for an action's output, and {@code Sprintf}. */
final class GoFormat {

    private GoFormat() {
    }

    /** A value as {@code fmt.Sprint} writes it. */
    static String print(Object v) {
        if (v == null) {
            return "<nil>";
        }
        if (v instanceof String s) {
            return s;
        }
        if (v instanceof Double d) {
            return floatG(d);
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder out = new StringBuilder("map[");
            String sep = "";
            for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
                out.append(sep).append(e.getKey()).append(':').append(print(e.getValue()));
                sep = " ";
            }
            return out.append(']').toString();
        }
        if (v instanceof List<?> l) {
            StringBuilder out = new StringBuilder("[");
            for (int i = 0; i < l.size(); i++) {
                out.append(i == 0 ? "" : " ").append(print(l.get(i)));
            }
            return out.append(']').toString();
        }
        return v.toString();
    }

    /** {@code fmt.Sprint} of several values: a space between two operands when neither is a string. */
    static String printAll(List<Object> args) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            if (i > 0 && !(args.get(i) instanceof String) && !(args.get(i - 1) instanceof String)) {
                out.append(' ');
            }
            out.append(print(args.get(i)));
        }
        return out.toString();
    }

    /** The Go type a value has in a template, for messages. */
    static String typeName(Object v) {
        if (v == null) {
            return "<nil>";
        }
        if (v instanceof String) {
            return "string";
        }
        if (v instanceof Long) {
            return "int";
        }
        if (v instanceof Double) {
            return "float64";
        }
        if (v instanceof Boolean) {
            return "bool";
        }
        if (v instanceof GoTime) {
            return "time.Time";
        }
        return v instanceof Map ? "map[string]string" : v.getClass().getSimpleName();
    }

    /** A float64 as {@code %v} writes it: the shortest digits, with an exponent below 1e-4 and from 1e6 ({@code 1e+06}). */
    static String floatG(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        int exp = b.precision() - b.scale() - 1;
        if (exp < -4 || exp >= 6) {
            String digits = b.unscaledValue().abs().toString();
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return (d < 0 ? "-" : "") + mantissa + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "")
                    + Math.abs(exp);
        }
        return b.toPlainString();
    }

    /** {@code fmt.Sprintf} for the verbs templates use: {@code %v %s %d %f %e %g %q %x %X %t %c %%}, flags, width, precision. */
    static String sprintf(String format, List<Object> args) {
        StringBuilder out = new StringBuilder();
        int arg = 0;
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            int start = i++;
            while (i < format.length() && "+-# 0".indexOf(format.charAt(i)) >= 0) {
                i++;
            }
            while (i < format.length() && (Character.isDigit(format.charAt(i)) || format.charAt(i) == '.')) {
                i++;
            }
            if (i >= format.length()) {
                out.append("%!(NOVERB)");
                break;
            }
            char verb = format.charAt(i);
            String spec = format.substring(start + 1, i);
            if (verb == '%') {
                out.append('%');
                continue;
            }
            if (arg >= args.size()) {
                out.append("%!").append(verb).append("(MISSING)");
                continue;
            }
            out.append(verb(verb, spec, args.get(arg++)));
        }
        if (arg < args.size()) {
            out.append("%!(EXTRA ");
            for (int k = arg; k < args.size(); k++) {
                out.append(k > arg ? ", " : "").append(typeName(args.get(k))).append('=').append(print(args.get(k)));
            }
            out.append(')');
        }
        return out.toString();
    }

    private static String verb(char verb, String spec, Object v) {
        String flags = spec.replaceAll("[0-9.].*$", "");
        String widthPrecision = spec.substring(flags.length());
        if (flags.contains("0") && flags.contains("-")) {
            flags = flags.replace("0", "");
        }
        String java = "%" + flags.replace("#", "") + widthPrecision;
        switch (verb) {
            case 'v', 's' -> {
                if (verb == 's' && (v instanceof Long || v instanceof Double || v instanceof Boolean)) {
                    return bad(verb, v);
                }
                return String.format(Locale.ROOT, java.replace("0", "").replace("+", "") + "s", print(v));
            }
            case 'q' -> {
                if (!(v instanceof String s)) {
                    return bad(verb, v);
                }
                return String.format(Locale.ROOT, java.replace("0", "") + "s", LogQlParser.quote(s));
            }
            case 'd', 'x', 'X', 'o', 'b', 'c' -> {
                if (!(v instanceof Long n)) {
                    return bad(verb, v);
                }
                if (verb == 'c') {
                    return new String(Character.toChars((int) (long) n));
                }
                if (verb == 'b') {
                    return String.format(Locale.ROOT, java.replaceAll("[+ ]", "") + "s", Long.toBinaryString(n));
                }
                return String.format(Locale.ROOT, java + (verb == 'd' ? "d" : String.valueOf(verb)), n);
            }
            case 'f', 'F', 'e', 'E', 'g', 'G' -> {
                if (!(v instanceof Double d)) {
                    return bad(verb, v);
                }
                if ((verb == 'g' || verb == 'G') && !widthPrecision.contains(".")) {
                    return String.format(Locale.ROOT, java.replace("0", "") + "s", floatG(d));
                }
                String s = String.format(Locale.ROOT, java + Character.toLowerCase(verb == 'F' ? 'f' : verb), d);
                return verb == 'E' || verb == 'G' ? s.toUpperCase(Locale.ROOT) : s;
            }
            case 't' -> {
                if (!(v instanceof Boolean)) {
                    return bad(verb, v);
                }
                return String.format(Locale.ROOT, java + "s", v);
            }
            default -> {
                return bad(verb, v);
            }
        }
    }

    private static String bad(char verb, Object v) {
        return "%!" + verb + "(" + typeName(v) + "=" + print(v) + ")";
    }
}
