package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import java.util.regex.Pattern;

/** One published block: whose it is, which signal, and its name. */
public record BlockRef(TenantId tenant, Signal signal, BlockName name) implements Comparable<BlockRef> {

    /** File names inside a block: plain names, so a name can never climb out of the block. */
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,255}");

    @Override
    public int compareTo(BlockRef o) {
        return name.compareTo(o.name);
    }

    @Override
    public String toString() {
        return tenant.value() + "/" + signal.dirName() + "/" + name;
    }

    /** Returns {@code file} when it may name a file inside a block (every store's check); throws otherwise. */
    public static String checkFileName(String file) {
        if (file == null || !FILE_NAME.matcher(file).matches() || file.equals(".") || file.equals("..")) {
            throw new IllegalArgumentException("a block file name must be a plain name of [A-Za-z0-9_.-], got "
                    + (file == null ? "null" : TenantId.quote(file)));
        }
        return file;
    }
}
