package dev.needle.ingest.wal;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;

/**
 * One write-ahead log entry: the accepted records of one request, as an OTLP protobuf export
 * request of their signal.
 *
 * @param sequence      the entry's position in the log, from 1, without gaps
 * @param signal        spans or logs
 * @param tenant        whose records they are
 * @param payload       an ExportTraceServiceRequest or ExportLogsServiceRequest, serialized, in its first
 *                      {@code payloadLength} bytes; an appended entry's array is the receiver's buffer, which
 *                      it reuses once the append completed
 * @param payloadLength how many bytes of {@code payload} are the entry's
 */
public record WalEntry(long sequence, Signal signal, TenantId tenant, byte[] payload, int payloadLength) {

    /** An entry whose payload is the whole array. */
    public WalEntry(long sequence, Signal signal, TenantId tenant, byte[] payload) {
        this(sequence, signal, tenant, payload, payload.length);
    }
}
