package dev.needle.query.logql.pipeline;

import java.util.ArrayList;
import java.util.List;

/** The path of a {@code | json label="path"} expression: {@code a.b}, {@code list[0]}, {@code a["b c"]} and their mixes. */
public final class JsonPath {

    private JsonPath() {
    }

    /** The path's steps: member names (String) and indexes (Integer); an error saying what is wrong. */
    public static List<Object> parse(String expression) {
        List<Object> steps = new ArrayList<>();
        int i = 0;
        int n = expression.length();
        boolean needStep = true;
        while (i < n) {
            char c = expression.charAt(i);
            if (c == '[') {
                int close;
                if (i + 1 < n && expression.charAt(i + 1) == '"') {
                    StringBuilder key = new StringBuilder();
                    int j = i + 2;
                    while (j < n && expression.charAt(j) != '"') {
                        if (expression.charAt(j) == '\\' && j + 1 < n) {
                            j++;
                        }
                        key.append(expression.charAt(j++));
                    }
                    if (j + 1 >= n || expression.charAt(j + 1) != ']') {
                        throw new IllegalArgumentException("syntax error: unclosed [\"");
                    }
                    steps.add(key.toString());
                    close = j + 1;
                } else {
                    close = expression.indexOf(']', i);
                    String index = close < 0 ? "" : expression.substring(i + 1, close);
                    if (!index.matches("[0-9]+")) {
                        throw new IllegalArgumentException("syntax error: unexpected " + (close < 0 ? "end" : index)
                                + " in [], expected an index or a quoted key");
                    }
                    steps.add(Integer.parseInt(index));
                }
                i = close + 1;
                needStep = false;
            } else if (c == '.') {
                if (needStep) {
                    throw new IllegalArgumentException("syntax error: unexpected .");
                }
                i++;
                needStep = true;
                if (i >= n || expression.charAt(i) == '.' || expression.charAt(i) == '[') {
                    throw new IllegalArgumentException("syntax error: a field name must follow .");
                }
            } else {
                if (!needStep) {
                    throw new IllegalArgumentException("syntax error: unexpected " + c);
                }
                int j = i;
                while (j < n && expression.charAt(j) != '.' && expression.charAt(j) != '[') {
                    j++;
                }
                steps.add(expression.substring(i, j));
                i = j;
                needStep = false;
            }
        }
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("syntax error: empty path");
        }
        return steps;
    }
}
