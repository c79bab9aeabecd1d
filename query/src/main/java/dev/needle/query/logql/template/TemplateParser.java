package dev.needle.query.logql.template;

import java.util.ArrayList;
import java.util.List;

/** Reads a template's text into {@link GoTemplate}'s nodes; errors read as Go's {@code template: line:1: …}. */
final class TemplateParser {

    private final String name;
    private final String text;
    private int pos;
    /** The action being read: its tokens and where the next one is. */
    private List<String> tokens;
    private int next;

    TemplateParser(String name, String text) {
        this.name = name;
        this.text = text;
    }

    List<GoTemplate.Node> parse() throws TemplateException {
        List<GoTemplate.Node> nodes = new ArrayList<>();
        String end = list(nodes);
        if (end != null) {
            throw error("unexpected {{" + end + "}}");
        }
        return nodes;
    }

    /** Reads nodes until the end of the text (null) or an {@code else}/{@code end} action, which it returns. */
    private String list(List<GoTemplate.Node> nodes) throws TemplateException {
        while (pos < text.length()) {
            int open = text.indexOf("{{", pos);
            String literal = open < 0 ? text.substring(pos) : text.substring(pos, open);
            if (open >= 0 && text.startsWith("{{- ", open) || open >= 0 && text.startsWith("{{-\t", open)
                    || open >= 0 && text.startsWith("{{-\n", open)) {
                literal = literal.stripTrailing();
            }
            if (!literal.isEmpty()) {
                nodes.add(new GoTemplate.Text(literal));
            }
            if (open < 0) {
                pos = text.length();
                return null;
            }
            String action = action(open);
            if (action == null) {
                continue;
            }
            tokens = tokenize(action);
            next = 0;
            if (tokens.isEmpty()) {
                throw error("missing value for command");
            }
            String word = tokens.get(0);
            switch (word) {
                case "end" -> {
                    expectEnd();
                    return "end";
                }
                case "else" -> {
                    return "else";
                }
                case "if", "with" -> nodes.add(branch(word.equals("with")));
                case "range", "define", "template", "block", "break", "continue" ->
                        throw error("{{" + word + "}} is not supported by needle's templates");
                default -> nodes.add(new GoTemplate.Action(pipeline(action.strip())));
            }
        }
        return null;
    }

    /** The inside of the action at {@code open}, its trim markers applied; null for a comment. */
    private String action(int open) throws TemplateException {
        int start = open + 2;
        boolean trimLeft = text.startsWith("- ", start) || text.startsWith("-\t", start) || text.startsWith("-\n", start);
        if (trimLeft) {
            start++;
        }
        int close = closing(start);
        if (close < 0) {
            throw error("unclosed action");
        }
        int end = close;
        boolean trimRight = close > start && text.charAt(close - 1) == '-' && close - 2 >= start
                && Character.isWhitespace(text.charAt(close - 2));
        if (trimRight) {
            end--;
        }
        pos = close + 2;
        if (trimRight) {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }
        String inside = text.substring(start, end);
        String stripped = inside.strip();
        if (stripped.startsWith("/*")) {
            if (!stripped.endsWith("*/")) {
                throw error("unclosed comment");
            }
            return null;
        }
        return inside;
    }

    /** The position of the {@code }}} that closes the action starting at {@code from}, outside quotes. */
    private int closing(int from) {
        char quote = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '`' || c == '\'') {
                quote = c;
            } else if (text.startsWith("}}", i)) {
                return i;
            }
        }
        return -1;
    }

    private GoTemplate.Branch branch(boolean with) throws TemplateException {
        String source = String.join(" ", tokens.subList(1, tokens.size()));
        next = 1;
        GoTemplate.Pipeline p = pipelineTokens(source);
        List<GoTemplate.Node> then = new ArrayList<>();
        List<GoTemplate.Node> otherwise = new ArrayList<>();
        String end = list(then);
        if (end == null) {
            throw error("unexpected EOF");
        }
        if (end.equals("else")) {
            if (tokens.size() > 1 && tokens.get(1).equals("if") && !with) {
                // {{else if …}} is an if inside the else branch that shares its {{end}}.
                tokens = new ArrayList<>(tokens.subList(1, tokens.size()));
                otherwise.add(branch(false));
                return new GoTemplate.Branch(false, p, then, otherwise);
            }
            if (tokens.size() > 1 && tokens.get(1).equals("with") && with) {
                tokens = new ArrayList<>(tokens.subList(1, tokens.size()));
                otherwise.add(branch(true));
                return new GoTemplate.Branch(true, p, then, otherwise);
            }
            if (tokens.size() > 1) {
                throw error("unexpected " + tokens.get(1) + " in else");
            }
            end = list(otherwise);
            if (!"end".equals(end)) {
                throw error(end == null ? "unexpected EOF" : "unexpected {{else}}");
            }
        }
        return new GoTemplate.Branch(with, p, then, otherwise);
    }

    private void expectEnd() throws TemplateException {
        if (tokens.size() > 1) {
            throw error("unexpected " + tokens.get(1) + " in end");
        }
    }

    private GoTemplate.Pipeline pipeline(String source) throws TemplateException {
        next = 0;
        return pipelineTokens(source);
    }

    /** A pipeline from the current token to the end of the action or a closing parenthesis. */
    private GoTemplate.Pipeline pipelineTokens(String source) throws TemplateException {
        List<GoTemplate.Command> commands = new ArrayList<>();
        List<GoTemplate.Arg> args = new ArrayList<>();
        while (next < tokens.size() && !tokens.get(next).equals(")")) {
            String t = tokens.get(next++);
            if (t.equals("|")) {
                if (args.isEmpty()) {
                    throw error("missing command");
                }
                commands.add(new GoTemplate.Command(args));
                args = new ArrayList<>();
                continue;
            }
            args.add(arg(t, source));
        }
        if (args.isEmpty()) {
            throw error(commands.isEmpty() ? "missing value for command" : "missing command");
        }
        commands.add(new GoTemplate.Command(args));
        for (GoTemplate.Command c : commands.subList(1, commands.size())) {
            if (!(c.args().get(0) instanceof GoTemplate.Function)) {
                throw error("non executable command in pipeline stage " + (commands.indexOf(c) + 1));
            }
        }
        return new GoTemplate.Pipeline(commands, source);
    }

    private GoTemplate.Arg arg(String t, String source) throws TemplateException {
        char c = t.charAt(0);
        if (t.equals("(")) {
            GoTemplate.Pipeline inner = pipelineTokens(source);
            if (next >= tokens.size() || !tokens.get(next).equals(")")) {
                throw error("unclosed left paren");
            }
            next++;
            return new GoTemplate.Nested(inner);
        }
        if (c == '.' && !(t.length() > 1 && Character.isDigit(t.charAt(1)))) {
            List<String> names = new ArrayList<>();
            for (String part : t.substring(1).split("\\.", -1)) {
                if (!part.isEmpty()) {
                    names.add(part);
                } else if (t.length() > 1) {
                    throw error("unexpected . after term " + t);
                }
            }
            return new GoTemplate.Field(names);
        }
        if (c == '$') {
            throw error("variables ($…) are not supported by needle's templates");
        }
        if (c == '"' || c == '`') {
            return new GoTemplate.Constant(unquote(t));
        }
        if (c == '\'') {
            String inner = unquote("\"" + t.substring(1, t.length() - 1) + "\"");
            if (inner.codePointCount(0, inner.length()) != 1) {
                throw error("malformed character constant: " + t);
            }
            return new GoTemplate.Constant((long) inner.codePointAt(0));
        }
        if (Character.isDigit(c) || c == '.' || (c == '-' || c == '+') && t.length() > 1) {
            return new GoTemplate.Constant(number(t));
        }
        switch (t) {
            case "true" -> {
                return new GoTemplate.Constant(Boolean.TRUE);
            }
            case "false" -> {
                return new GoTemplate.Constant(Boolean.FALSE);
            }
            case "nil" -> throw error("nil is not a command");
            default -> {
                if (!TemplateFunctions.exists(t)) {
                    throw error(TemplateFunctions.unsupported(t)
                            ? "function \"" + t + "\" is not supported by needle's templates"
                            : "function \"" + t + "\" not defined");
                }
                return new GoTemplate.Function(t);
            }
        }
    }

    private Object number(String t) throws TemplateException {
        try {
            String digits = t.replace("_", "");
            if (digits.matches("[+-]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]*|[1-9][0-9]*|0[bB][01]+)")) {
                boolean negative = digits.startsWith("-");
                String u = digits.replaceFirst("^[+-]", "");
                long v;
                if (u.startsWith("0x") || u.startsWith("0X")) {
                    v = Long.parseLong(u.substring(2), 16);
                } else if (u.startsWith("0b") || u.startsWith("0B")) {
                    v = Long.parseLong(u.substring(2), 2);
                } else if (u.startsWith("0o") || u.startsWith("0O")) {
                    v = Long.parseLong(u.substring(2), 8);
                } else if (u.length() > 1 && u.startsWith("0")) {
                    v = Long.parseLong(u.substring(1), 8);
                } else {
                    v = Long.parseLong(u);
                }
                return negative ? -v : v;
            }
            if (digits.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
                return Double.parseDouble(digits);
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        throw error("bad number syntax: " + quote(t));
    }

    /** A quoted constant's value: Go's escapes in {@code "…"}, raw text in {@code `…`}. */
    private String unquote(String t) throws TemplateException {
        if (t.length() < 2 || t.charAt(t.length() - 1) != t.charAt(0)) {
            throw error("unterminated quoted string");
        }
        String inner = t.substring(1, t.length() - 1);
        if (t.charAt(0) == '`') {
            return inner;
        }
        StringBuilder out = new StringBuilder(inner.length());
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= inner.length()) {
                throw error("unterminated quoted string");
            }
            char e = inner.charAt(i);
            int simple = GoEscapes.simple(e);
            if (simple >= 0) {
                out.append((char) simple);
                continue;
            }
            switch (e) {
                case 'x', 'u', 'U' -> {
                    int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    if (i + n >= inner.length()) {
                        throw error("invalid syntax in " + t);
                    }
                    try {
                        out.appendCodePoint(Integer.parseInt(inner.substring(i + 1, i + 1 + n), 16));
                    } catch (IllegalArgumentException ex) {
                        throw error("invalid syntax in " + t);
                    }
                    i += n;
                }
                default -> throw error("invalid syntax in " + t);
            }
        }
        return out.toString();
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    /** An action's tokens: quoted constants whole, fields, words, numbers, {@code |}, {@code (} and {@code )}. */
    private List<String> tokenize(String action) throws TemplateException {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < action.length()) {
            char c = action.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '|' || c == '(' || c == ')') {
                out.add(String.valueOf(c));
                i++;
            } else if (c == '"' || c == '`' || c == '\'') {
                int j = i + 1;
                while (j < action.length() && action.charAt(j) != c) {
                    j += action.charAt(j) == '\\' && c != '`' ? 2 : 1;
                }
                if (j >= action.length()) {
                    throw error("unterminated quoted string");
                }
                out.add(action.substring(i, j + 1));
                i = j + 1;
            } else if (c == ':' || c == '=' && (out.isEmpty() || !out.get(out.size() - 1).startsWith("$"))) {
                throw error(c == ':' ? "variables ($…) are not supported by needle's templates"
                        : "unexpected \"=\" in operand");
            } else {
                int j = i;
                while (j < action.length() && !Character.isWhitespace(action.charAt(j)) && "|()\"`'".indexOf(action.charAt(j)) < 0) {
                    j++;
                }
                out.add(action.substring(i, j));
                i = j;
            }
        }
        return out;
    }

    private TemplateException error(String message) {
        return new TemplateException("template: " + name + ":1: " + message);
    }
}
