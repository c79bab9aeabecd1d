package dev.needle.query.cli;

/**
 * A lookup that could not be answered, with the message for the user and the exit code to end with:
 * an unreadable data directory, an unreachable server, an answer that is not what the API promises.
 */
final class QueryFailure extends Exception {

    private final int exitCode;

    QueryFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    QueryFailure(int exitCode, String message) {
        this(exitCode, message, null);
    }

    int exitCode() {
        return exitCode;
    }
}
