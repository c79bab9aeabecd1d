package dev.needle.query.logql.template;

/** A template that cannot be parsed, or whose execution failed on an entry; the message reads as Go's. */
public final class TemplateException extends Exception {

    public TemplateException(String message) {
        super(message, null, false, false);
    }
}
