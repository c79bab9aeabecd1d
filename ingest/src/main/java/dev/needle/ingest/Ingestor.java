package dev.needle.ingest;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.util.List;

/** Takes validated records durably: each call returns once they are fsynced in the write-ahead log and queryable. */
public interface Ingestor {

    /**
     * Refuses a request before it is decoded when it would be refused once decoded (the head within a
     * request of its bound), so that a refusal costs no decode; returns when the request may go on.
     */
    void admit() throws IngestRefusedException;

    /**
     * Accepts spans: returns once they are durable and in the head. The first {@code length} bytes of
     * {@code protobuf} are an ExportTraceServiceRequest that holds exactly these spans, which the
     * write-ahead log then takes as they are, or {@code protobuf} is null: the log encodes them. The
     * array may be used again once this returned or refused; not after any other exception, which
     * may leave the log still holding it.
     */
    void acceptSpans(TenantId tenant, List<SpanRecord> spans, byte[] protobuf, int length)
            throws IngestRefusedException, IOException;

    /** Accepts log records as {@link #acceptSpans} accepts spans; {@code protobuf} an ExportLogsServiceRequest or null. */
    void acceptLogs(TenantId tenant, List<LogRecord> logs, byte[] protobuf, int length)
            throws IngestRefusedException, IOException;
}
