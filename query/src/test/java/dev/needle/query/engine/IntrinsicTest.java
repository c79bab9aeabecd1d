package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.IndexedHashes;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one definition of each {@link Intrinsic} holds on written blocks: its value in a decoded
 * record is its value in the batch row the record was written to, the writer indexes the record
 * under the key and value that a query on it probes, and a condition on it matches the same rows
 * in the batch as in the decoded records.
 */
class IntrinsicTest {

    /** The intrinsics checked, and how many rows had no value for one, so that no case goes untested. */
    private final Set<Intrinsic> checked = EnumSet.noneOf(Intrinsic.class);
    private int withoutValue;

    @Test
    void everyIntrinsic_recordEqualsBatchRow_andIsIndexedUnderTheProbedKey(@TempDir Path dir) throws Exception {
        try (RootAllocator allocator = new RootAllocator()) {
            FsBlockStore store = new FsBlockStore(dir);
            Corpus corpus = Corpus.write(store, allocator, TenantId.DEFAULT, 11, 3, 200);
            for (BlockRef block : corpus.spanBlocks) {
                check(store.blockDir(block), Signal.SPANS, allocator);
            }
            for (BlockRef block : corpus.logBlocks) {
                check(store.blockDir(block), Signal.LOGS, allocator);
            }
        }
        assertEquals(EnumSet.allOf(Intrinsic.class), checked);
        assertTrue(withoutValue > 0, "no log record without a severity was checked");
    }

    private void check(Path blockDir, Signal signal, BufferAllocator allocator) throws Exception {
        Sidecar attrIdx = BloomSidecar.read(blockDir.resolve(BloomSidecar.ATTR_IDX));
        assertTrue(attrIdx.isVerified(), attrIdx.toString());
        FileChannel data = FileChannel.open(blockDir.resolve("data.arrow"));
        try (ArrowFileReader reader = new ArrowFileReader(data, allocator)) {
            VectorSchemaRoot batch = reader.getVectorSchemaRoot();
            while (reader.loadNextBatch()) {
                for (int row = 0; row < batch.getRowCount(); row++) {
                    if (signal == Signal.SPANS) {
                        SpanRecord s = new SpanColumns(batch).read(row);
                        checkRow(new Row(batch, row, signal, attrIdx, IndexedHashes.of(s), i -> i.stored(s),
                                i -> i.value(s), Values.of(s)));
                    } else {
                        LogRecord r = new LogColumns(batch).read(row);
                        checkRow(new Row(batch, row, signal, attrIdx, IndexedHashes.of(r), i -> i.stored(r),
                                i -> i.value(r), Values.of(r)));
                    }
                }
            }
        }
    }

    /**
     * One row of a written batch and what is known of it: the pairs the writer indexes for its
     * decoded record, and the record's stored values and condition values per intrinsic.
     */
    private record Row(VectorSchemaRoot batch, int row, Signal signal, Sidecar attrIdx,
            Map<String, AttributeHash> indexed, Function<Intrinsic, AnyValue> stored,
            Function<Intrinsic, AnyValue> value, Values values) {
    }

    private void checkRow(Row r) throws Exception {
        Map<String, AttributeHash> intrinsicPairs = new HashMap<>(r.indexed());
        intrinsicPairs.keySet().removeIf(k -> k.startsWith(IndexedPairs.RESOURCE) || k.startsWith(IndexedPairs.SCOPE)
                || k.startsWith(IndexedPairs.SPAN) || k.startsWith(IndexedPairs.LOG));
        Map<String, AttributeHash> probed = new HashMap<>();
        for (Intrinsic i : Intrinsic.of(r.signal())) {
            String what = i + " at row " + r.row();
            AnyValue value = r.value().apply(i);
            assertEquals(value, i.values(r.batch()).apply(r.row()), what);

            Attribute attribute = new Attribute(r.signal(), Attribute.Scope.INTRINSIC, i.word());
            assertEquals(i, attribute.intrinsic(), what);
            assertEquals(i.indexedKey().stream().toList(), attribute.indexedKeys(), what);
            Literal literal = literal(r.stored().apply(i));
            for (String key : attribute.indexedKeys()) {
                probed.put(key, literal.hash(key));
                assertTrue(r.attrIdx().mayContain(literal.hash(key)), what);
            }

            Expr.Condition equal = new Expr.Condition(attribute, Op.EQ, literal);
            Target<?> target = r.signal() == Signal.SPANS ? SearchTarget.spans(equal, TimeRange.ALL)
                    : SearchTarget.logs(equal, TimeRange.ALL);
            assertNull(target.ruledOutBy(r.attrIdx()), what);
            assertEquals(value != null, Values.matches(equal, r.values()), what);
            assertEquals(value != null, target.matchingRows(r.batch()).contains(r.row()), what);

            checked.add(i);
            withoutValue += value == null ? 1 : 0;
        }
        assertEquals(probed, intrinsicPairs, "row " + r.row());
    }

    /** The literal that equals a stored intrinsic value: names are strings, every other intrinsic an int. */
    private static Literal literal(AnyValue stored) {
        return stored instanceof AnyValue.Str s ? new Literal.StringLit(s.value())
                : new Literal.IntLit(((AnyValue.Int) stored).value());
    }
}
