package dev.needle.ingest.head;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.HeapEstimate;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.ingest.wal.WalEntry;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * The accepted records of one request or write-ahead log entry: spans or log records, never both.
 *
 * @param kind        which signal's records they are
 * @param list        the records
 * @param heapBytes   the heap bytes the records and their trace id hashes hold, estimated (see {@link HeapEstimate}):
 *                    what the head's bound counts
 * @param traceHashes each record's trace id hash ({@link Bytes#hashCode}), in order: what a trace lookup in the head
 *                    compares first. Taken where the records are decoded, while their ids are in that core's cache,
 *                    and not on the write-ahead log's thread under the head's lock.
 */
public record Records<R>(SignalKind<R> kind, List<R> list, long heapBytes, int[] traceHashes) {

    /** These records, their heap bytes estimated and their trace ids hashed. */
    public static <R> Records<R> of(SignalKind<R> kind, List<R> list) {
        int[] hashes = new int[list.size()];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = kind.traceId(list.get(i)).hashCode();
        }
        return new Records<>(kind, list, kind.heapBytes(list) + HeapEstimate.traceHashes(list.size()), hashes);
    }

    /** The records of a write-ahead log entry, whose payload {@link #encode} or a receiver wrote. */
    public static Records<?> decode(WalEntry entry) throws IOException {
        return decode(SignalKind.of(entry.signal()), entry);
    }

    private static <R> Records<R> decode(SignalKind<R> kind, WalEntry entry) throws IOException {
        return of(kind, kind.decodeWire(entry.payload(), entry.payloadLength()).records());
    }

    /** Which signal the records are. */
    public Signal signal() {
        return kind.signal();
    }

    /** How many records. */
    public int size() {
        return list.size();
    }

    /** Records {@code from} (inclusive) to {@code to} (exclusive) of these, holding {@code heapBytes}. */
    public Records<R> slice(int from, int to, long heapBytes) {
        return new Records<>(kind, list.subList(from, to), heapBytes, Arrays.copyOfRange(traceHashes, from, to));
    }

    /** The records as the write-ahead log stores them: an OTLP export request of their signal, serialized. */
    public byte[] encode() {
        return kind.encodeWire(list);
    }

    /** Writes the records as one block, with id {@code id}. */
    public WrittenBlock writeBlock(BlockWriter writer, TenantId tenant, String id) throws IOException {
        return writer.write(kind, tenant, list, id, List.of());
    }

    /** These records as {@code other}'s, or null when they are another signal's. */
    @SuppressWarnings("unchecked")
    public <T> Records<T> as(SignalKind<T> other) {
        return kind == other ? (Records<T>) this : null;
    }
}
