package dev.needle.ingest.wal;

/** The write-ahead log's backlog of entries waiting for fsync is over its bound: the client should retry later. */
public final class WalFullException extends Exception {

    /** A refusal explained by {@code message}. */
    public WalFullException(String message) {
        super(message);
    }
}
