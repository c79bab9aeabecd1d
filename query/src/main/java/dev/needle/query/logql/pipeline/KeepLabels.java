package dev.needle.query.logql.pipeline;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code | keep name, other="value"}: every label removed but those named, a label with a matcher kept
 * only when it holds; {@code __error__} and {@code __error_details__} are always kept.
 */
public record KeepLabels(List<DropLabels.Named> labels) implements Stage {

    public KeepLabels {
        labels = List.copyOf(labels);
    }

    @Override
    public boolean process(EntryState e) {
        for (Map.Entry<String, String> label : e.all().entrySet()) {
            String name = label.getKey();
            String value = label.getValue();
            if (name.equals(EntryState.ERROR) || name.equals(EntryState.ERROR_DETAILS)) {
                continue;
            }
            boolean keep = labels.stream().anyMatch(n -> n.name().equals(name)
                    && (n.matcher() == null || n.matcher().test(value)));
            if (!keep) {
                e.delete(name);
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
        return "| keep " + labels.stream().map(DropLabels.Named::toString).collect(Collectors.joining(","));
    }
}
