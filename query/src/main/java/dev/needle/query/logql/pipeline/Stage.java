package dev.needle.query.logql.pipeline;

/** One step of a log query's pipeline, run on each entry in turn, as Loki's {@code log.Stage}. */
public interface Stage {

    /** Runs the step on the entry, which it may change; false drops the entry. */
    boolean process(EntryState entry);

    /** Whether the step may change the line (so that line filters after it test another text than the body). */
    default boolean changesLine() {
        return false;
    }

    /** Whether the step may add, change or remove labels (so that label filters after it may see other values). */
    default boolean changesLabels() {
        return false;
    }
}
