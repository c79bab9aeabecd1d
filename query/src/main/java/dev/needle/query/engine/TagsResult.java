package dev.needle.query.engine;

import dev.needle.blocks.index.BlockTags;
import java.util.List;

/**
 * The attribute keys, and their values, of a tenant's spans in a time range, at the granularity of
 * blocks: a block that overlaps the range gives all its keys.
 *
 * @param tags     the keys as {@code IndexedPairs} names them ({@code resource.k}, {@code span.k},
 *                 {@code scope.k}, {@code intrinsic.name} …), each with its distinct values, at most
 *                 {@link BlockTags#MAX_VALUES_PER_KEY} (TRUNCATED past it)
 * @param blocks   blocks whose keys were taken
 * @param scanned  of those, blocks read record by record because their TAGS file was missing, damaged,
 *                 or cut short for a key whose values were asked for
 * @param problems one message per block that could not be read at all: the answer is partial when any
 */
public record TagsResult(BlockTags tags, int blocks, int scanned, List<String> problems) {

    public TagsResult {
        problems = List.copyOf(problems);
    }
}
