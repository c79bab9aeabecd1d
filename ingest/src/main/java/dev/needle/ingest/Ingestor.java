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
     * Accepts spans: returns once they are durable and in the head. {@code protobuf} is an
     * ExportTraceServiceRequest that holds exactly these spans, which the write-ahead log then takes
     * as it is, or null: the log encodes them.
     */
    void acceptSpans(TenantId tenant, List<SpanRecord> spans, byte[] protobuf) throws IngestRefusedException, IOException;

    /** Accepts log records as {@link #acceptSpans} accepts spans; {@code protobuf} an ExportLogsServiceRequest or null. */
    void acceptLogs(TenantId tenant, List<LogRecord> logs, byte[] protobuf) throws IngestRefusedException, IOException;
}
