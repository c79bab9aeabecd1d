package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.template.GoTemplate;
import dev.needle.query.logql.template.TemplateException;

/**
 * {@code | line_format "{{.label}} …"}: the line replaced by the template's output over the entry's
 * labels, its line ({@code __line__}) and time ({@code __timestamp__}). A template that fails on an
 * entry sets {@code __error__=TemplateFormatErr} and keeps the line; {@code "{{.name}}"} alone gives
 * the label's value, {@code ""} when missing, as Loki's shortcut does.
 */
public record LineFormat(String text, GoTemplate template) implements Stage {

    /** The error a template that fails sets. */
    static final String TEMPLATE_ERR = "TemplateFormatErr";

    @Override
    public boolean process(EntryState e) {
        String field = template.singleField();
        if (field != null) {
            String v = e.get(field);
            e.line(v == null ? "" : v);
            return true;
        }
        try {
            e.line(template.execute(new GoTemplate.Input(e.all(), e.line(), e.timeUnixNano())));
        } catch (TemplateException ex) {
            e.fail(TEMPLATE_ERR, ex.getMessage());
        }
        return true;
    }

    @Override
    public boolean changesLine() {
        return true;
    }

    @Override
    public String toString() {
        return "| line_format " + LogQlParser.quote(text);
    }
}
