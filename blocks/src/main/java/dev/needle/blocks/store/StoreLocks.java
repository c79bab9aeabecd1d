package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per tenant and signal in this process, held by whatever deletes or replaces blocks
 * (retention, compaction), so that the two never act on the same blocks at once: a compaction that
 * read blocks retention then deleted would publish their records again.
 */
public final class StoreLocks {

    private record Key(TenantId tenant, Signal signal) {
    }

    private static final Map<Key, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private StoreLocks() {
    }

    /** The lock of {@code tenant}'s {@code signal}. */
    public static ReentrantLock of(TenantId tenant, Signal signal) {
        return LOCKS.computeIfAbsent(new Key(tenant, signal), k -> new ReentrantLock());
    }
}
