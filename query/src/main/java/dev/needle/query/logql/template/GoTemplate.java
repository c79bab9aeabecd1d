package dev.needle.query.logql.template;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Go {@code text/template} as Loki's {@code line_format} and {@code label_format} run it: text and
 * actions {@code {{ … }}} (with {@code {{-}} and {@code -}}} trimming blanks), pipelines of commands
 * joined by {@code |} (the value before a {@code |} is the last argument of the next command),
 * fields of the entry's labels ({@code .name}, a missing label is {@code ""}), {@code .} for all of
 * them, string, number and boolean constants, parenthesised pipelines, {@code if}/{@code else if}/
 * {@code else}/{@code end}, {@code with}/{@code else}/{@code end}, comments, and the functions of
 * {@link TemplateFunctions}. Variables and {@code range} are not supported: parsing says so.
 */
public final class GoTemplate {

    private final String name;
    private final List<Node> root;

    private GoTemplate(String name, List<Node> root) {
        this.name = name;
        this.root = root;
    }

    /** What an entry gives a template: its labels, line and time. */
    public record Input(Map<String, String> labels, String line, long timeUnixNano) {
    }

    sealed interface Node {
    }

    record Text(String text) implements Node {
    }

    record Action(Pipeline pipeline) implements Node {
    }

    /** {@code if} or {@code with}: {@code with} runs its branch with dot set to the value. */
    record Branch(boolean with, Pipeline pipeline, List<Node> then, List<Node> otherwise) implements Node {
    }

    record Pipeline(List<Command> commands, String source) {
    }

    record Command(List<Arg> args) {
    }

    sealed interface Arg {
    }

    /** {@code .a.b}; empty for {@code .}. */
    record Field(List<String> names) implements Arg {
    }

    record Constant(Object value) implements Arg {
    }

    record Function(String name) implements Arg {
    }

    record Nested(Pipeline pipeline) implements Arg {
    }

    /** Parses {@code text}; {@code name} is how Go's messages call it ({@code line} or {@code label}). */
    public static GoTemplate parse(String name, String text) throws TemplateException {
        return new GoTemplate(name, new TemplateParser(name, text).parse());
    }

    /** The template's output for one entry; an error as Go's {@code Execute} reports it. */
    public String execute(Input input) throws TemplateException {
        StringBuilder out = new StringBuilder();
        run(root, input, input.labels(), out);
        return out.toString();
    }

    /** Whether the template is just {@code {{.name}}}; then its name, else null. */
    public String singleField() {
        if (root.size() == 1 && root.get(0) instanceof Action a && a.pipeline().commands().size() == 1) {
            List<Arg> args = a.pipeline().commands().get(0).args();
            if (args.size() == 1 && args.get(0) instanceof Field f && f.names().size() == 1) {
                return f.names().get(0);
            }
        }
        return null;
    }

    private void run(List<Node> nodes, Input input, Object dot, StringBuilder out) throws TemplateException {
        for (Node n : nodes) {
            if (n instanceof Text t) {
                out.append(t.text());
            } else if (n instanceof Action a) {
                out.append(GoFormat.print(eval(a.pipeline(), input, dot)));
            } else if (n instanceof Branch b) {
                Object v = eval(b.pipeline(), input, dot);
                if (TemplateFunctions.truth(v)) {
                    run(b.then(), input, b.with() ? v : dot, out);
                } else {
                    run(b.otherwise(), input, dot, out);
                }
            }
        }
    }

    Object eval(Pipeline p, Input input, Object dot) throws TemplateException {
        Object value = null;
        boolean piped = false;
        for (Command c : p.commands()) {
            value = command(c, input, dot, piped ? value : null, piped, p.source());
            piped = true;
        }
        return value;
    }

    private Object command(Command c, Input input, Object dot, Object last, boolean piped, String source)
            throws TemplateException {
        Arg first = c.args().get(0);
        if (first instanceof Function f) {
            List<Object> args = new ArrayList<>();
            for (Arg a : c.args().subList(1, c.args().size())) {
                args.add(arg(a, input, dot, source));
            }
            if (piped) {
                args.add(last);
            }
            try {
                return TemplateFunctions.call(f.name(), args, input);
            } catch (TemplateException e) {
                throw error(source, "error calling " + f.name() + ": " + e.getMessage());
            }
        }
        if (c.args().size() > 1 || piped) {
            throw error(source, "can't give argument to non-function " + describe(first));
        }
        return arg(first, input, dot, source);
    }

    private Object arg(Arg a, Input input, Object dot, String source) throws TemplateException {
        if (a instanceof Constant k) {
            return k.value();
        }
        if (a instanceof Nested n) {
            return eval(n.pipeline(), input, dot);
        }
        if (a instanceof Function f) {
            try {
                return TemplateFunctions.call(f.name(), List.of(), input);
            } catch (TemplateException e) {
                throw error(source, "error calling " + f.name() + ": " + e.getMessage());
            }
        }
        Object v = dot;
        for (String field : ((Field) a).names()) {
            if (v instanceof Map<?, ?> m) {
                Object got = m.get(field);
                v = got == null ? "" : got;
            } else {
                throw error(source, "can't evaluate field " + field + " in type " + GoFormat.typeName(v));
            }
        }
        return v;
    }

    private static String describe(Arg a) {
        if (a instanceof Field f) {
            return f.names().isEmpty() ? "." : "." + String.join(".", f.names());
        }
        if (a instanceof Constant k) {
            return GoFormat.print(k.value());
        }
        return "(…)";
    }

    private TemplateException error(String source, String message) {
        return new TemplateException("template: " + name + ":1: executing \"" + name + "\" at <" + source + ">: " + message);
    }
}
