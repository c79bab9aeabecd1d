package dev.needle.query.cli;

import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Severity;
import dev.needle.query.ql.Keywords;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Formatting for people: times, durations, statuses, severities, values, and aligned tables. */
final class Text {

    /** The longest log body a table shows before cutting it. */
    static final int BODY_WIDTH = 80;

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Text() {
    }

    /** "1 span", "2 spans": English plurals of the nouns this CLI counts, which all take an s. */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** Unix nanoseconds as an RFC 3339 UTC time to the millisecond. */
    static String time(long unixNano) {
        return TIME.format(Instant.ofEpochSecond(Math.floorDiv(unixNano, 1_000_000_000L),
                Math.floorMod(unixNano, 1_000_000_000L)));
    }

    /** A duration in the unit that suits it: 850ns, 12.3us, 4.210ms, 2.500s, 59m59.877s, 26h0m5.000s. */
    static String duration(long nanos) {
        if (nanos < 0) {
            // A span that ends before it starts is the sender's mistake; show it rather than hide it.
            return "-" + duration(nanos == Long.MIN_VALUE ? Long.MAX_VALUE : -nanos);
        }
        if (nanos < 1_000) {
            return nanos + "ns";
        }
        if (nanos < 1_000_000) {
            return String.format(Locale.ROOT, "%.1fus", nanos / 1e3);
        }
        if (nanos < 1_000_000_000) {
            return String.format(Locale.ROOT, "%.3fms", nanos / 1e6);
        }
        if (nanos < 60_000_000_000L) {
            return String.format(Locale.ROOT, "%.3fs", nanos / 1e9);
        }
        long minutes = nanos / 60_000_000_000L;
        String seconds = String.format(Locale.ROOT, "%.3fs", (nanos % 60_000_000_000L) / 1e9);
        return minutes < 60 ? minutes + "m" + seconds : minutes / 60 + "h" + minutes % 60 + "m" + seconds;
    }

    /** OTLP's span status code as a word; unknown codes as their number. */
    static String status(int code) {
        return Keywords.of(Intrinsic.STATUS, code).orElse(Integer.toString(code));
    }

    /** The record's own severity text, else OTLP's name for the number (INFO, WARN2, …), else "-". */
    static String severity(int number, String text) {
        if (!text.isEmpty()) {
            return oneLine(text);
        }
        if (number < 1 || number > Severity.MAX_NUMBER) {
            return number == 0 ? "-" : Integer.toString(number);
        }
        return Severity.otlpName(number);
    }

    /** The resource's {@code service.name}, or "-" when it has none. */
    static String service(Resource resource) {
        for (KeyValue kv : resource.attributes()) {
            if (kv.key().equals("service.name")) {
                return oneLine(value(kv.value()));
            }
        }
        return "-";
    }

    /** An attribute value or log body as a person reads it: strings bare, the rest compact. */
    static String value(AnyValue v) {
        // Java 17 has no pattern matching in switch, hence the chain.
        if (v instanceof AnyValue.Str s) {
            return s.value();
        } else if (v instanceof AnyValue.Bool b) {
            return Boolean.toString(b.value());
        } else if (v instanceof AnyValue.Int i) {
            return Long.toString(i.value());
        } else if (v instanceof AnyValue.Dbl d) {
            return Double.toString(d.value());
        } else if (v instanceof AnyValue.Blob b) {
            return "0x" + b.value().hex();
        } else if (v instanceof AnyValue.Array a) {
            return "[" + String.join(", ", a.values().stream().map(Text::value).toList()) + "]";
        } else if (v instanceof AnyValue.KvList l) {
            return "{" + String.join(", ", l.values().stream().map(kv -> kv.key() + "=" + value(kv.value())).toList())
                    + "}";
        }
        return "";
    }

    /** {@code s} on one line (control characters as spaces, so that a table stays a table), cut to {@code width}. */
    static String cut(String s, int width) {
        String line = oneLine(s);
        return line.length() <= width ? line : line.substring(0, width - 1) + "…";
    }

    private static String oneLine(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(Character.isISOControl(c) ? ' ' : c);
        }
        return out.toString();
    }

    /** A table whose columns are as wide as their widest cell; the last column is never padded. */
    static final class Table {

        private final List<String[]> rows = new ArrayList<>();
        private final boolean[] rightAligned;

        /** A table with these headers; a header starting with '>' names a right-aligned column. */
        Table(String... headers) {
            rightAligned = new boolean[headers.length];
            String[] names = new String[headers.length];
            for (int i = 0; i < headers.length; i++) {
                rightAligned[i] = headers[i].startsWith(">");
                names[i] = rightAligned[i] ? headers[i].substring(1) : headers[i];
            }
            rows.add(names);
        }

        Table row(String... cells) {
            if (cells.length != rightAligned.length) {
                throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of "
                        + rightAligned.length + " columns");
            }
            rows.add(cells);
            return this;
        }

        void print(PrintWriter out) {
            int[] widths = new int[rightAligned.length];
            for (String[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    widths[i] = Math.max(widths[i], row[i].length());
                }
            }
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < row.length; i++) {
                    boolean last = i == row.length - 1;
                    String pad = " ".repeat(widths[i] - row[i].length());
                    if (rightAligned[i]) {
                        line.append(pad).append(row[i]);
                    } else {
                        line.append(row[i]).append(last ? "" : pad);
                    }
                    if (!last) {
                        line.append("  ");
                    }
                }
                out.println(line.toString().stripTrailing());
            }
        }
    }
}
