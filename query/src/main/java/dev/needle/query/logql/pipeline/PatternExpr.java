package dev.needle.query.logql.pipeline;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pattern expression of {@code | pattern "…"} and of the line filters {@code |>} and {@code !>}, as
 * Loki's: literals and captures {@code <name>}, {@code <_>} for a capture that is not kept. Matching is
 * anchored at the line's start; a capture runs to the next occurrence of the literals after it, or to
 * the end of the line when it is last or they do not occur.
 */
public final class PatternExpr {

    private static final Pattern CAPTURE = Pattern.compile("<([A-Za-z_][A-Za-z0-9_]*)>");

    /** Literals (String) and captures (Capture), never two captures in a row. */
    private final List<Object> nodes;

    private record Capture(String name) {
        boolean unnamed() {
            return name.equals("_");
        }
    }

    private PatternExpr(List<Object> nodes) {
        this.nodes = nodes;
    }

    /** The pattern of {@code | pattern}: at least one named capture, no name twice. */
    public static PatternExpr forParser(String text) {
        PatternExpr p = parse(text);
        List<String> names = p.names();
        if (names.isEmpty()) {
            throw new IllegalArgumentException("at least one capture is required");
        }
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            if (!seen.add(n)) {
                throw new IllegalArgumentException("duplicate capture name (" + n + "): invalid expression");
            }
        }
        return p;
    }

    /** The pattern of a line filter: only {@code <_>} captures. */
    public static PatternExpr forLineFilter(String text) {
        PatternExpr p = parse(text);
        for (Object n : p.nodes) {
            if (n instanceof Capture c && !c.unnamed()) {
                throw new IllegalArgumentException("named captures are not allowed: found '<" + c.name() + ">'");
            }
        }
        return p;
    }

    private static PatternExpr parse(String text) {
        List<Object> nodes = new ArrayList<>();
        Matcher m = CAPTURE.matcher(text);
        int at = 0;
        while (m.find()) {
            if (m.start() > at) {
                nodes.add(text.substring(at, m.start()));
            }
            if (!nodes.isEmpty() && nodes.get(nodes.size() - 1) instanceof Capture previous) {
                throw new IllegalArgumentException("found consecutive capture '<" + previous.name() + "><" + m.group(1)
                        + ">': invalid expression");
            }
            nodes.add(new Capture(m.group(1)));
            at = m.end();
        }
        if (at < text.length()) {
            nodes.add(text.substring(at));
        }
        return new PatternExpr(nodes);
    }

    /** The names of the kept captures, in order. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        for (Object n : nodes) {
            if (n instanceof Capture c && !c.unnamed()) {
                names.add(c.name());
            }
        }
        return names;
    }

    /** The values of the kept captures that matched, in order: fewer than {@link #names} when matching stopped early. */
    public List<String> matches(String in) {
        List<String> captures = new ArrayList<>();
        if (in.isEmpty() || nodes.isEmpty()) {
            return captures;
        }
        int i = 0;
        if (nodes.get(0) instanceof String first) {
            if (!in.startsWith(first)) {
                return captures;
            }
            in = in.substring(first.length());
            i = 1;
        }
        if (i == nodes.size()) {
            return captures;
        }
        while (i < nodes.size()) {
            Capture c = (Capture) nodes.get(i);
            if (i == nodes.size() - 1) {
                if (!c.unnamed()) {
                    captures.add(in);
                }
                return captures;
            }
            String literal = (String) nodes.get(i + 1);
            i += 2;
            int found = in.indexOf(literal);
            if (found < 0) {
                if (!c.unnamed()) {
                    captures.add(in);
                }
                return captures;
            }
            if (!c.unnamed()) {
                captures.add(in.substring(0, found));
            }
            in = in.substring(found + literal.length());
        }
        return captures;
    }

    /**
     * Whether the line fits the pattern as Loki's pattern line filter tests it: each literal found in
     * turn, a capture between two of them not empty, and text after the last literal exactly when the
     * pattern ends in a capture.
     */
    public boolean test(String in) {
        if (in.isEmpty() || nodes.isEmpty()) {
            return in.isEmpty() && nodes.isEmpty();
        }
        int off = 0;
        for (int i = 0; i < nodes.size(); i++) {
            if (!(nodes.get(i) instanceof String literal)) {
                continue;
            }
            int j = in.indexOf(literal, off);
            if (j < 0 || i != 0 && j == off) {
                return false;
            }
            off = j + literal.length();
        }
        boolean endsInCapture = nodes.get(nodes.size() - 1) instanceof Capture;
        return endsInCapture == (off != in.length());
    }
}
