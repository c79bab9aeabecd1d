package dev.needle.blocks.index;

import dev.needle.blocks.model.AnyValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Makes a block's TAGS file what TAGS version 1 wrote: without TagsOnlyPairs' keys, version byte 1. */
public final class Version1Tags {

    private Version1Tags() {
    }

    /** Rewrites {@code blockDir}'s TAGS as version 1 would have written it for the same records. */
    public static void downgrade(Path blockDir) throws IOException {
        Path file = blockDir.resolve(BlockTags.FILE);
        BlockTags tags = BlockTags.decode(Files.readAllBytes(file), file.toString());
        BlockTags.Builder v1 = new BlockTags.Builder();
        tags.keys().forEach((key, values) -> {
            if (TagsOnlyPairs.holds(key)) {
                return;
            }
            for (AnyValue v : values.values()) {
                if (v instanceof AnyValue.Str s) {
                    v1.string(key, s.value());
                } else if (v instanceof AnyValue.Int i) {
                    v1.integer(key, i.value());
                } else if (v instanceof AnyValue.Dbl d) {
                    v1.dbl(key, d.value());
                } else {
                    v1.bool(key, ((AnyValue.Bool) v).value());
                }
            }
        });
        byte[] bytes = v1.file().orElseThrow();
        // Same layout; the version byte lies outside the body's checksum.
        bytes[4] = BlockTags.VERSION_1;
        Files.write(file, bytes);
    }
}
