package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.template.GoTemplate;
import dev.needle.query.logql.template.TemplateException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code | label_format dst=src, other="{{…}}"}: {@code dst=src} renames (src is removed; nothing
 * happens when the entry has no src), {@code dst="template"} sets dst to the template's output over
 * the labels as the stage found them. A template that fails sets {@code __error__=TemplateFormatErr}.
 */
public record LabelFormat(List<Format> formats) implements Stage {

    /**
     * One {@code dst=…}.
     *
     * @param source   the label renamed, or null for a template
     * @param text     the template's text, or null for a rename
     * @param template the parsed template, or null for a rename
     */
    public record Format(String name, String source, String text, GoTemplate template) {
        @Override
        public String toString() {
            return name + "=" + (source != null ? source : LogQlParser.quote(text));
        }
    }

    public LabelFormat {
        formats = List.copyOf(formats);
    }

    @Override
    public boolean process(EntryState e) {
        Map<String, String> labels = null;
        for (Format f : formats) {
            if (f.source() != null) {
                String v = e.get(f.source());
                if (v != null) {
                    // As Loki: dst=dst sets the label and then removes it.
                    e.set(f.name(), v);
                    e.delete(f.source());
                }
                continue;
            }
            if (labels == null) {
                // Loki reads the labels once, at the first template of the stage.
                labels = e.all();
            }
            try {
                e.set(f.name(), f.template().execute(new GoTemplate.Input(labels, e.line(), e.timeUnixNano())));
            } catch (TemplateException ex) {
                e.fail(LineFormat.TEMPLATE_ERR, ex.getMessage());
            }
        }
        return true;
    }

    @Override
    public boolean changesLabels() {
        return true;
    }

    @Override
    public String toString() {
        return "| label_format " + formats.stream().map(Format::toString).collect(Collectors.joining(","));
    }
}
