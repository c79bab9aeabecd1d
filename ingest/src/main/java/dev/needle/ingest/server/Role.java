package dev.needle.ingest.server;

import java.util.Locale;

/**
 * What one needle process does. Any number of query nodes may read the store that ingest nodes (or
 * one {@code all} process) write; a query node asks the ingest nodes it is given for their
 * unpublished records, so an acknowledged record is answered by every query node at once.
 */
public enum Role {
    /** Ingest and query in one process, over its own head: the default. */
    ALL,
    /** OTLP in, the write-ahead log, publishing to the store; its query port serves its head to query nodes, /ready and /metrics. */
    INGEST,
    /** The query API over the store and the ingest nodes' heads; no write-ahead log, and nothing written to the store. */
    QUERY;

    /** The word {@code --role} takes. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the process takes OTLP and owns a write-ahead log. */
    boolean ingests() {
        return this != QUERY;
    }

    /** Whether the process serves the query API. */
    boolean queries() {
        return this != INGEST;
    }
}
