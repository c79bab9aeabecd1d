package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;

/** One published block: whose it is, which signal, and its name. */
public record BlockRef(TenantId tenant, Signal signal, BlockName name) implements Comparable<BlockRef> {

    @Override
    public int compareTo(BlockRef o) {
        return name.compareTo(o.name);
    }

    @Override
    public String toString() {
        return tenant.value() + "/" + signal.dirName() + "/" + name;
    }
}
