package dev.needle.blocks.read;

import dev.needle.blocks.meta.ColumnChecksums;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.reads.ByteRange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/**
 * The pieces of one record batch that a read needs, in a block of writer version 3: the message
 * header and the chosen columns' byte ranges, which meta.json places and checksums one by one
 * ({@link ColumnChecksums}). They are read before the header is parsed, pieces closer than a gap
 * in one read (on an object store one GET: a trace lookup's header and trace-id column are
 * neighbours), and each is checked against its own CRC-32C before any of it is used, so a batch's
 * other columns are never read and a damaged one is found by the read that needs it.
 */
final class CheckedPieces {

    /** One piece: a column, or the header (column −1), at file positions {@code [start, end)}, and its bytes. */
    private record Piece(int column, long start, long end, long crc32c, ArrowBuf bytes) {
    }

    private final int batch;
    private final BlockRef block;
    private final Piece header;
    /** The pieces by schema position; null for a column not read. */
    private final Piece[] columns;
    private final List<String> columnNames;

    private CheckedPieces(BlockRef block, int batch, Piece header, Piece[] columns,
                          List<String> columnNames) {
        this.block = block;
        this.batch = batch;
        this.header = header;
        this.columns = columns;
        this.columnNames = columnNames;
    }

    /** Pieces {@code from..to} of a read's list, fetched by one read: bytes {@code [start, end)} of data.arrow. */
    private record Run(int from, int to, long start, long end) {
    }

    /**
     * The ranges of data.arrow that {@link #read} reads for the same arguments, one per run of
     * pieces, in file order: what may be fetched ahead of it.
     */
    static List<ByteRange> ranges(BlockRef block, int batch, ArrowBlock place, ColumnChecksums checks,
                                  List<Integer> chosen, List<String> columnNames, long gap) throws CorruptBlockException {
        return runs(block, batch, wanted(block, batch, place, checks, chosen, columnNames), gap).stream()
                .map(r -> new ByteRange(r.start(), r.end())).toList();
    }

    /**
     * Reads and checks the header of batch {@code batch}, which the footer places at {@code place}
     * (already checked to lie in the file), and the ranges of columns {@code chosen} (schema
     * positions, ascending) from {@code data}, one read per run of pieces less than {@code gap}
     * bytes apart. The runs read are added to {@code owned}, whose owner releases them.
     */
    static CheckedPieces read(BlockRef block, int batch, ArrowBlock place, ColumnChecksums checks, List<Integer> chosen,
                              List<String> columnNames, SeekableByteChannel data, long gap, BufferAllocator allocator,
                              List<ArrowBuf> owned) throws IOException {
        List<Piece> wanted = wanted(block, batch, place, checks, chosen, columnNames);
        List<Piece> pieces = new ArrayList<>(wanted.size());
        for (Run r : runs(block, batch, wanted, gap)) {
            long length = r.end() - r.start();
            ArrowBuf run = allocator.buffer(Math.max(1, length));
            owned.add(run);
            ByteBuffer target = run.nioBuffer(0, (int) length);
            data.position(r.start());
            while (target.hasRemaining()) {
                if (data.read(target) < 0) {
                    throw new IOException("data.arrow ends inside batch " + batch);
                }
            }
            for (Piece p : wanted.subList(r.from(), r.to())) {
                ArrowBuf bytes = run.slice(p.start() - r.start(), p.end() - p.start());
                check(block, batch, p, bytes, columnNames);
                pieces.add(new Piece(p.column(), p.start(), p.end(), p.crc32c(), bytes));
            }
        }
        Piece[] byColumn = new Piece[columnNames.size()];
        for (Piece p : pieces.subList(1, pieces.size())) {
            byColumn[p.column()] = p;
        }
        return new CheckedPieces(block, batch, pieces.get(0), byColumn, columnNames);
    }

    /** The header's piece, then the chosen columns', where meta.json places them; none holds bytes yet. */
    private static List<Piece> wanted(BlockRef block, int batch, ArrowBlock place, ColumnChecksums checks,
                                      List<Integer> chosen, List<String> columnNames) throws CorruptBlockException {
        if (checks.columnCount() != columnNames.size()) {
            throw CorruptBlockException.inBatch(block, batch, "checksum failed: meta.json has checksums for "
                    + checks.columnCount() + " columns, the schema has " + columnNames.size());
        }
        long bodyStart = place.getOffset() + place.getMetadataLength();
        long bodyLength = place.getBodyLength();
        List<Piece> wanted = new ArrayList<>();
        wanted.add(new Piece(-1, place.getOffset(), bodyStart, checks.headerCrc32c(), null));
        for (int c : chosen) {
            long from = checks.offsets().get(c);
            long to = checks.end(c, bodyLength);
            if (to > bodyLength) {
                throw CorruptBlockException.inBatch(block, batch, "column " + columnNames.get(c)
                        + " checksum failed: meta.json places it at " + from + ".." + to + ", beyond the batch body's "
                        + bodyLength + " bytes");
            }
            wanted.add(new Piece(c, bodyStart + from, bodyStart + to, checks.crc32c().get(c), null));
        }
        return wanted;
    }

    /** {@code wanted} in runs of pieces less than {@code gap} bytes apart: one read each. */
    private static List<Run> runs(BlockRef block, int batch, List<Piece> wanted, long gap)
            throws CorruptBlockException {
        List<Run> runs = new ArrayList<>();
        int i = 0;
        while (i < wanted.size()) {
            int j = i;
            while (j + 1 < wanted.size() && wanted.get(j + 1).start() - wanted.get(j).end() < gap) {
                j++;
            }
            long start = wanted.get(i).start();
            long end = wanted.get(j).end();
            if (end - start > Integer.MAX_VALUE) {
                throw CorruptBlockException.inBatch(block, batch, "a read of " + (end - start) + " bytes is too large");
            }
            runs.add(new Run(i, j + 1, start, end));
            i = j + 1;
        }
        return runs;
    }

    private static void check(BlockRef block, int batch, Piece piece, ArrowBuf bytes, List<String> columnNames)
            throws CorruptBlockException {
        CRC32C crc = new CRC32C();
        crc.update(bytes.nioBuffer(0, (int) bytes.capacity()));
        if (crc.getValue() != piece.crc32c()) {
            String what = piece.column() < 0 ? "header" : "column " + columnNames.get(piece.column());
            throw CorruptBlockException.inBatch(block, batch, String.format("%s checksum failed: expected crc32c"
                    + " 0x%08x (meta.json), actual 0x%08x over its %d bytes at offset %d of data.arrow", what,
                    piece.crc32c(), crc.getValue(), bytes.capacity(), piece.start()));
        }
    }

    /** The checked header, as a channel at the file's positions for the message reader; the caller closes it. */
    VerifiedBatch header() {
        return VerifiedBatch.of(batch, header.start(), header.bytes());
    }

    /**
     * The stored bytes of each buffer of {@code plans}, whose columns (schema positions) are
     * {@code planColumns}: slices of the checked pieces. A buffer the header places outside its
     * column's range is corruption: its bytes are not the ones checked for it.
     */
    List<ArrowBuf> buffers(List<BufferChecker.BufferPlan> plans, List<Integer> planColumns)
            throws CorruptBlockException {
        List<ArrowBuf> buffers = new ArrayList<>(plans.size());
        for (int k = 0; k < plans.size(); k++) {
            BufferChecker.BufferPlan plan = plans.get(k);
            Piece piece = columns[planColumns.get(k)];
            long bodyStart = header.end();
            long at = bodyStart + plan.offset();
            if (at < piece.start() || at + plan.size() > piece.end()) {
                throw CorruptBlockException.inBatch(block, batch, "column "
                        + columnNames.get(piece.column()) + " checksum failed: its buffer " + plan.index() + " ("
                        + plan.field() + ") lies outside the column's range in meta.json");
            }
            buffers.add(piece.bytes().slice(at - piece.start(), plan.size()));
        }
        return buffers;
    }
}
