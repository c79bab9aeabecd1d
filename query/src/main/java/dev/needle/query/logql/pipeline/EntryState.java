package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LokiEntry;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One entry while a pipeline runs, as Loki's {@code LabelsBuilder}: its line and time, its stream
 * labels and structured metadata less those the pipeline removed or replaced, the labels the pipeline
 * made ({@code parsed}), and the pipeline's error ({@code __error__}, {@code __error_details__}).
 *
 * <p>A label's value is looked up in what the pipeline made, then the stream labels, then the
 * structured metadata that filters see (scalar values: {@link LokiEntry}). A label the pipeline sets
 * hides a stream label or structured metadata of that name.
 */
public final class EntryState {

    /** The label that names a pipeline's error. */
    public static final String ERROR = "__error__";
    /** The label that says more about it. */
    public static final String ERROR_DETAILS = "__error_details__";

    private final LokiEntry source;
    private String line;
    private final Map<String, String> stream;
    private final Map<String, String> metadata;
    private final Map<String, String> shown;
    private final Map<String, String> parsed = new LinkedHashMap<>();
    private final Set<String> extracted = new HashSet<>();
    private String error = "";
    private String errorDetails = "";

    /** The state of {@code entry} before the first step. */
    public EntryState(LokiEntry entry) {
        source = entry;
        line = entry.line();
        stream = new TreeMap<>(entry.labels());
        metadata = new LinkedHashMap<>(entry.metadata());
        shown = new LinkedHashMap<>(entry.shown());
    }

    /** The entry's time in Unix nanoseconds. */
    public long timeUnixNano() {
        return source.timeUnixNano();
    }

    /** The line as the steps so far left it. */
    public String line() {
        return line;
    }

    /** Replaces the line. */
    public void line(String text) {
        line = text;
    }

    /** A label's value; null when it has none. {@code __error__} is not a label here: see {@link #error()}. */
    public String get(String name) {
        String v = parsed.get(name);
        if (v == null) {
            v = stream.get(name);
        }
        return v != null ? v : metadata.get(name);
    }

    /** A string label filter's value: {@code __error__} and its details too, and {@code ""} for a missing label. */
    public String valueForMatcher(String name) {
        if (name.equals(ERROR)) {
            return error;
        }
        if (name.equals(ERROR_DETAILS)) {
            return errorDetails;
        }
        String v = get(name);
        return v == null ? "" : v;
    }

    /**
     * The name under which a parser stores {@code key}: with {@code _extracted} after it when the
     * entry came with a stream label of that name or has structured metadata of that name, as Loki does.
     */
    public String parsedName(String key) {
        return source.labels().containsKey(key) || shown.containsKey(key) ? key + "_extracted" : key;
    }

    /**
     * Stores what a parser found, unless the pipeline already made a label of that name for this
     * entry: the first value found wins, as Loki's parsers keep it.
     */
    public void extract(String name, String value) {
        if (!extracted.contains(name)) {
            set(name, value);
        }
    }

    /** Sets a label the pipeline makes, hiding a stream label or structured metadata of that name. */
    public void set(String name, String value) {
        extracted.add(name);
        metadata.remove(name);
        shown.remove(name);
        stream.remove(name);
        parsed.put(name, value);
    }

    /** Removes a label, whatever made it. */
    public void delete(String name) {
        parsed.remove(name);
        metadata.remove(name);
        shown.remove(name);
        stream.remove(name);
    }

    /**
     * Every label and its value now, as a template sees them: stream labels, all structured metadata,
     * labels made, and the error when there is one.
     */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>(shown);
        all.putAll(stream);
        all.putAll(parsed);
        if (!error.isEmpty()) {
            all.put(ERROR, error);
        }
        if (!errorDetails.isEmpty()) {
            all.put(ERROR_DETAILS, errorDetails);
        }
        return all;
    }

    /** The pipeline's error so far, {@code ""} when none. */
    public String error() {
        return error;
    }

    /** Sets the error ({@code JSONParserErr} …) and its details, unless {@code details} is null. */
    public void fail(String error, String details) {
        this.error = error;
        if (details != null) {
            errorDetails = details;
        }
    }

    /** Sets the error and its details unless an error is already set, as Loki's label filters do. */
    public void failFirst(String error, String details) {
        if (this.error.isEmpty()) {
            fail(error, details);
        }
    }

    /** Drops the error. */
    public void clearError() {
        error = "";
    }

    /** Drops the error's details. */
    public void clearErrorDetails() {
        errorDetails = "";
    }

    /** The entry as answered: its line now, the stream labels and structured metadata left, the labels made and the error. */
    public LokiEntry result() {
        Map<String, String> made = new LinkedHashMap<>(parsed);
        if (!error.isEmpty()) {
            made.put(ERROR, error);
        }
        if (!errorDetails.isEmpty()) {
            made.put(ERROR_DETAILS, errorDetails);
        }
        return new LokiEntry(source.timeUnixNano(), line, stream, metadata, shown, made);
    }
}
