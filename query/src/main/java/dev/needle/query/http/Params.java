package dev.needle.query.http;

import dev.needle.blocks.model.Bytes;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.TimeRange;
import dev.needle.sidecar.TraceIdText;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;

/**
 * A request's query parameters, read the way every endpoint reads them; each problem is a 400
 * naming the parameter. An empty value counts as absent, as in Tempo's API.
 */
public final class Params {

    /** Unix seconds, Tempo style, with an optional fraction; bounded so that parsing stays cheap. */
    private static final Pattern SECONDS = Pattern.compile("\\d{1,19}(\\.\\d{1,18})?");
    private static final Pattern DIGITS = Pattern.compile("\\d{1,9}");
    private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final List<String> MECHANISMS = List.of("time", "trace_idx", "attr_idx", "zone_maps", "index", "counts");

    private final Fields fields;

    private Params(Fields fields) {
        this.fields = fields;
    }

    /** The query parameters of {@code request}. */
    public static Params of(Request request) throws ApiException {
        try {
            return new Params(Request.extractQueryParameters(request, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            // Jetty refuses bad percent-encoding here with its own exception: that is the client's mistake.
            throw ApiException.badRequest("the query string cannot be decoded: " + e.getMessage());
        }
    }

    /** The query parameters and, for a form POST, the form's fields: Loki takes its parameters either way. */
    public static Params withForm(Request request) throws ApiException {
        try {
            return new Params(Request.getParameters(request));
        } catch (Exception e) {
            throw ApiException.badRequest("the parameters cannot be decoded: " + e.getMessage());
        }
    }

    /** Every non-empty value of a repeatable parameter, such as Loki's {@code match[]}. */
    public List<String> strings(String name) {
        return fields.getValuesOrEmpty(name).stream().filter(v -> !v.isEmpty()).toList();
    }

    /** The parameter's value, or null when it is absent or empty; given twice is an error. */
    public String string(String name) throws ApiException {
        List<String> values = fields.getValuesOrEmpty(name);
        if (values.size() > 1) {
            throw ApiException.badRequest(name + ": given " + values.size() + " times, at most once allowed");
        }
        return values.isEmpty() || values.get(0).isEmpty() ? null : values.get(0);
    }

    /** {@code true} or {@code false}; false when absent. */
    public boolean flag(String name) throws ApiException {
        String v = string(name);
        if (v == null || v.equals("false")) {
            return false;
        }
        if (v.equals("true")) {
            return true;
        }
        throw ApiException.badRequest(name + ": expected true or false, got " + quote(v));
    }

    /** {@code limit}, from 1 to {@code max}; {@code defaultLimit} when absent. */
    public int limit(int defaultLimit, int max) throws ApiException {
        String v = string("limit");
        if (v == null) {
            return defaultLimit;
        }
        if (!DIGITS.matcher(v).matches() || Integer.parseInt(v) < 1 || Integer.parseInt(v) > max) {
            throw ApiException.badRequest("limit: expected a whole number from 1 to " + max + ", got " + quote(v));
        }
        return Integer.parseInt(v);
    }

    /**
     * {@code start} and {@code end} in Unix seconds, both inclusive; either may be left out to
     * leave that side open. Fractions are kept to the nanosecond, start rounded down and end up,
     * so that the range never excludes an instant the seconds given include.
     */
    public TimeRange range() throws ApiException {
        long from = nanos("start", RoundingMode.FLOOR, Long.MIN_VALUE);
        long to = nanos("end", RoundingMode.CEILING, Long.MAX_VALUE);
        if (from > to) {
            throw ApiException.badRequest("start (" + string("start") + ") is after end (" + string("end") + ")");
        }
        return from == Long.MIN_VALUE && to == Long.MAX_VALUE ? TimeRange.ALL : new TimeRange(from, to);
    }

    /** Every mechanism except those in {@code disable}, a comma-separated list. */
    public Mechanisms mechanisms() throws ApiException {
        String v = string("disable");
        if (v == null) {
            return Mechanisms.ALL;
        }
        boolean time = true;
        boolean traceIdx = true;
        boolean attrIdx = true;
        boolean zoneMaps = true;
        boolean index = true;
        boolean counts = true;
        for (String name : v.split(",", -1)) {
            switch (name.trim()) {
                case "time" -> time = false;
                case "trace_idx" -> traceIdx = false;
                case "attr_idx" -> attrIdx = false;
                case "zone_maps" -> zoneMaps = false;
                case "index" -> index = false;
                case "counts" -> counts = false;
                case "" -> { }
                default -> throw ApiException.badRequest("disable: unknown mechanism " + quote(name.trim())
                        + "; expected a comma-separated list of " + String.join(", ", MECHANISMS));
            }
        }
        return new Mechanisms(time, traceIdx, attrIdx, zoneMaps, index, counts);
    }

    private long nanos(String name, RoundingMode rounding, long absent) throws ApiException {
        String v = string(name);
        if (v == null) {
            return absent;
        }
        if (!SECONDS.matcher(v).matches()) {
            throw ApiException.badRequest(name + ": expected Unix seconds such as 1764446100 or 1764446100.5, got "
                    + quote(v));
        }
        BigDecimal nanos = new BigDecimal(v).movePointRight(9).setScale(0, rounding);
        if (nanos.compareTo(MAX_NANOS) > 0) {
            // Most often nanoseconds given where seconds are expected: say which unit is meant.
            throw ApiException.badRequest(name + ": " + v + " seconds is beyond 2262-04-11, the last instant a record"
                    + " can hold; give Unix seconds, not milli- or nanoseconds");
        }
        return nanos.longValueExact();
    }

    /** A trace id as {@link TraceIdText} reads it, from a request's path or parameter. */
    public static Bytes traceId(String raw) throws ApiException {
        return Bytes.wrap(TraceIdText.parse(raw).orElseThrow(() ->
                ApiException.badRequest("trace id: expected 1 to 32 hex digits, got " + quote(raw))));
    }

    /** {@code s} quoted for a message, cut short so that a huge parameter cannot make a huge reply. */
    public static String quote(String s) {
        return s.length() <= 64 ? "\"" + s + "\"" : "\"" + s.substring(0, 64) + "…\" (" + s.length() + " characters)";
    }
}
