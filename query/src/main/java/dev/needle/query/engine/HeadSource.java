package dev.needle.query.engine;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import java.util.List;

/**
 * The records acknowledged by ingest but not yet in a published block, which every query scans.
 * Query owns this interface and ingest implements it, so that the dependency points from ingest
 * to query.
 *
 * <p>Contract: a record leaves the head only after the block that holds it is published and
 * listed by the store. The engine takes the head's snapshot before it lists blocks, so a record
 * being published during a query is seen at least once; the engine drops the duplicate.
 */
public interface HeadSource {

    /** A head with nothing in it: for tools that read a data directory directly. */
    HeadSource EMPTY = new HeadSource() {
        @Override
        public List<SpanRecord> spans(TenantId tenant) {
            return List.of();
        }

        @Override
        public List<LogRecord> logs(TenantId tenant) {
            return List.of();
        }
    };

    /** A snapshot of the tenant's unpublished spans; the list does not change afterwards. */
    List<SpanRecord> spans(TenantId tenant);

    /** A snapshot of the tenant's unpublished log records; the list does not change afterwards. */
    List<LogRecord> logs(TenantId tenant);
}
