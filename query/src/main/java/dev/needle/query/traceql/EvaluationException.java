package dev.needle.query.traceql;

/**
 * A query that parsed but cannot be run on a trace, as Tempo refuses it too: a structural
 * operator between sides that hold more than one spanset each (after {@code by()} without
 * {@code coalesce()}).
 */
public final class EvaluationException extends RuntimeException {

    EvaluationException(String message) {
        super(message);
    }
}
