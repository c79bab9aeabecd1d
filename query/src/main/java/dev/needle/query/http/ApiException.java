package dev.needle.query.http;

/**
 * A request the API answers with a 4xx and a message: bad parameters, an unknown path, nothing
 * found. Checked, so that every endpoint decides where the user's mistakes end up.
 */
public final class ApiException extends Exception {

    private final int status;

    public ApiException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** A 400 Bad Request. */
    public static ApiException badRequest(String message) {
        return new ApiException(400, message);
    }

    /** A 404 Not Found. */
    public static ApiException notFound(String message) {
        return new ApiException(404, message);
    }

    /** The HTTP status to answer with. */
    public int status() {
        return status;
    }
}
