package dev.needle.query.cli;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.TimeRange;

/**
 * What every lookup of one command line shares.
 *
 * @param tenant     whose blocks to read
 * @param range      the event times to look in; {@link TimeRange#ALL} when none was given
 * @param mechanisms the pruning mechanisms left on
 * @param explain    whether to return the plan
 */
record Request(TenantId tenant, TimeRange range, Mechanisms mechanisms, boolean explain) {
}
