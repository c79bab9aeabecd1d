package dev.needle.ingest;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.util.List;

/** Takes validated records durably: each call returns once they are fsynced in the write-ahead log and queryable. */
public interface Ingestor {

    /** Accepts spans: returns once they are durable and in the head. */
    void acceptSpans(TenantId tenant, List<SpanRecord> spans) throws IngestRefusedException, IOException;

    /** Accepts log records: returns once they are durable and in the head. */
    void acceptLogs(TenantId tenant, List<LogRecord> logs) throws IngestRefusedException, IOException;
}
