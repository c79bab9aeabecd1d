package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQl;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code | drop name, other="value"}: the labels named removed, those with a matcher only when it
 * holds; {@code __error__} and {@code __error_details__} can be dropped too.
 *
 * @param labels a name alone (matcher null) or a matcher, in order
 */
public record DropLabels(List<Named> labels) implements Stage {

    /** A label of {@code drop} or {@code keep}: a name alone, or a matcher on it. */
    public record Named(String name, LogQl.Matcher matcher) {
        @Override
        public String toString() {
            return matcher == null ? name : matcher.toString();
        }
    }

    public DropLabels {
        labels = List.copyOf(labels);
    }

    @Override
    public boolean process(EntryState e) {
        for (Named n : labels) {
            boolean drop = n.matcher() == null || n.matcher().test(e.valueForMatcher(n.name()));
            if (!drop) {
                continue;
            }
            switch (n.name()) {
                case EntryState.ERROR -> e.clearError();
                case EntryState.ERROR_DETAILS -> e.clearErrorDetails();
                default -> e.delete(n.name());
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
        return "| drop " + labels.stream().map(Named::toString).collect(Collectors.joining(","));
    }
}
