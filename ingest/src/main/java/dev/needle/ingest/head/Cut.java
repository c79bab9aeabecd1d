package dev.needle.ingest.head;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import java.util.Map;

/**
 * What the head held when it was cut: every record with a write-ahead log sequence up to
 * {@code maxSequence}, by tenant. It stays queryable until its blocks are published.
 *
 * @param maxSequence the last write-ahead log entry the cut holds; every earlier one is in it or in an earlier cut
 * @param spans       spans by tenant
 * @param logs        log records by tenant
 * @param rows        records in all
 * @param walBytes    the write-ahead log payload bytes of its records, what the head's bound counts
 *
 * <p>Cuts are told apart by identity, never by {@code equals}: two cuts' contents may be equal, and
 * comparing them would walk every record.
 */
public record Cut(long maxSequence, Map<TenantId, java.util.List<SpanRecord>> spans,
                  Map<TenantId, java.util.List<LogRecord>> logs, long rows, long walBytes) {
}
