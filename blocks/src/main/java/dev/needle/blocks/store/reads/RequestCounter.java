package dev.needle.blocks.store.reads;

/**
 * Told of every request a {@link dev.needle.blocks.store.BlockStore} makes to read a file: on the
 * local filesystem each read call, on an object store each GET (or HEAD). What a lookup costs on a
 * bucket is its requests more than its bytes, so EXPLAIN shows both per block.
 */
@FunctionalInterface
public interface RequestCounter {

    /** Counts nothing. */
    RequestCounter NONE = bytes -> { };

    /** One request was made, which returned {@code bytes} bytes. */
    void request(long bytes);
}
