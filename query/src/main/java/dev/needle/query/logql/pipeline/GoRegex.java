package dev.needle.query.logql.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A regular expression written for Go (RE2) compiled by {@link Pattern}, which agrees on the common
 * subset; named groups {@code (?P<name>…)} and {@code (?<name>…)} keep their names, which Java would
 * refuse when they hold {@code _}, by being renamed inside the pattern.
 *
 * @param pattern the compiled pattern
 * @param names   each group's Go name by group number (index 0, the whole match, and unnamed groups: {@code ""})
 */
public record GoRegex(Pattern pattern, List<String> names) {

    /** Compiles {@code regex}; a {@link java.util.regex.PatternSyntaxException} when it is not valid. */
    public static GoRegex compile(String regex, int flags) {
        StringBuilder out = new StringBuilder(regex.length());
        List<String> names = new ArrayList<>();
        names.add(null);
        boolean inClass = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\' && i + 1 < regex.length()) {
                out.append(c).append(regex.charAt(++i));
                continue;
            }
            if (inClass) {
                inClass = c != ']';
                out.append(c);
                continue;
            }
            if (c == '[') {
                inClass = true;
                out.append(c);
                if (i + 1 < regex.length() && regex.charAt(i + 1) == ']') {
                    out.append(regex.charAt(++i));
                }
                continue;
            }
            if (c == '(') {
                int nameStart = regex.startsWith("(?P<", i) ? i + 4 : regex.startsWith("(?<", i) && !regex.startsWith("(?<=", i)
                        && !regex.startsWith("(?<!", i) ? i + 3 : -1;
                int nameEnd = nameStart < 0 ? -1 : regex.indexOf('>', nameStart);
                if (nameEnd > nameStart) {
                    names.add(regex.substring(nameStart, nameEnd));
                    out.append("(?<g").append(names.size() - 1).append('>');
                    i = nameEnd;
                    continue;
                }
                if (!regex.startsWith("(?", i)) {
                    names.add(null);
                }
            }
            out.append(c);
        }
        return new GoRegex(Pattern.compile(out.toString(), flags), List.copyOf(names.stream().map(n -> n == null ? "" : n).toList()));
    }

    /** Whether the expression names any group. */
    public boolean hasNames() {
        return names.stream().anyMatch(n -> !n.isEmpty());
    }
}
