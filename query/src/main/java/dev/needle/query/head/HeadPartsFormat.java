package dev.needle.query.head;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.query.engine.HeadSource.Part;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of {@code GET /internal/head/{signal}}: an ingest node's unpublished records, part by part, as
 * a query node reads them into {@link Part}s. A protobuf message, so that a field added later is
 * skipped by a reader that does not know it (nodes of two versions side by side), and so that the
 * records themselves are OTLP's export request, encoded by {@link OtlpWireWriter} as the write-ahead
 * log and the API encode them.
 *
 * <pre>
 * message HeadParts {
 *   repeated Part part = 1;   // in the head's order; a large part is sent as several with the same block_id
 *   uint64 parts = 15;        // written last: the number of parts; a body without it was cut short
 * }
 * message Part {
 *   string block_id = 1;      // the block the records are being published as; absent while none is
 *   bytes records = 2;        // an ExportTraceServiceRequest (spans) or ExportLogsServiceRequest (logs)
 *   string problem = 3;       // why records are missing from the snapshot; absent when read whole
 *   string published = 4;     // the whole name of the block just published with this part's records (none sent)
 * }
 * </pre>
 *
 * <p>A field of {@link Part} is one line in {@link #writePart} and one {@code case} in {@link #readPart}.
 * A reader refuses a body without its count, or whose count does not match, as cut short.
 */
public final class HeadPartsFormat<R> {

    /** The media type of the body. */
    public static final String MEDIA_TYPE = "application/x-protobuf";

    /** Most records sent in one part: an ingest node encodes one part at a time, and so bounds its memory. */
    static final int MAX_RECORDS_PER_PART = 10_000;

    /** Spans, as OTLP's ExportTraceServiceRequest. */
    public static final HeadPartsFormat<SpanRecord> SPANS = new HeadPartsFormat<>(
            OtlpWireWriter::encodeSpans,
            OtlpWire::decodeSpans);

    /** Log records, as OTLP's ExportLogsServiceRequest. */
    public static final HeadPartsFormat<LogRecord> LOGS = new HeadPartsFormat<>(
            OtlpWireWriter::encodeLogs,
            OtlpWire::decodeLogs);

    private static final int PART = 1;
    private static final int PART_COUNT = 15;
    private static final int BLOCK_ID = 1;
    private static final int RECORDS = 2;
    private static final int PROBLEM = 3;
    private static final int PUBLISHED = 4;

    private final Encoder<R> encoder;
    private final Decoder<R> decoder;

    private HeadPartsFormat(Encoder<R> encoder, Decoder<R> decoder) {
        this.encoder = encoder;
        this.decoder = decoder;
    }

    /** Writes {@code parts} to {@code out}, encoding one part (of at most {@link #MAX_RECORDS_PER_PART} records) at a time. */
    public void write(List<Part<R>> parts, OutputStream out) throws IOException {
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        long written = 0;
        for (Part<R> part : parts) {
            List<R> records = part.records();
            int from = 0;
            do {
                int to = Math.min(records.size(), from + MAX_RECORDS_PER_PART);
                coded.writeBytes(PART, writePart(new Part<>(part.blockId(), records.subList(from, to), part.published(),
                        part.problem())));
                written++;
                from = to;
            } while (from < records.size());
        }
        coded.writeUInt64(PART_COUNT, written);
        coded.flush();
    }

    private ByteString writePart(Part<R> part) throws IOException {
        byte[] records = encoder.encode(part.records());
        ByteString.Output bytes = ByteString.newOutput(records.length + 64);
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        if (part.blockId() != null) {
            out.writeString(BLOCK_ID, part.blockId());
        }
        out.writeByteArray(RECORDS, records);
        if (part.problem() != null) {
            out.writeString(PROBLEM, part.problem());
        }
        if (part.published() != null) {
            out.writeString(PUBLISHED, part.published());
        }
        out.flush();
        return bytes.toByteString();
    }

    /**
     * Reads a body written by {@link #write}.
     *
     * @throws IOException when the body is not one, was cut short, or holds records that do not decode
     */
    public List<Part<R>> read(InputStream in) throws IOException {
        CodedInputStream coded = CodedInputStream.newInstance(in);
        List<Part<R>> parts = new ArrayList<>();
        long count = -1;
        try {
            while (!coded.isAtEnd()) {
                int tag = coded.readTag();
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case PART -> parts.add(readPart(coded.readBytes()));
                    case PART_COUNT -> count = coded.readUInt64();
                    default -> coded.skipField(tag);
                }
            }
        } catch (InvalidProtocolBufferException e) {
            throw new IOException("not a head answer: " + e.getMessage(), e);
        }
        if (count != parts.size()) {
            throw new IOException(count < 0 ? "the head answer was cut short after " + parts.size() + " parts"
                    : "the head answer says " + count + " parts and holds " + parts.size());
        }
        return parts;
    }

    private Part<R> readPart(ByteString bytes) throws IOException {
        CodedInputStream in = bytes.newCodedInput();
        String blockId = null;
        byte[] records = new byte[0];
        String problem = null;
        String published = null;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (WireFormat.getTagFieldNumber(tag)) {
                case BLOCK_ID -> blockId = in.readString();
                case RECORDS -> records = in.readByteArray();
                case PROBLEM -> problem = in.readString();
                case PUBLISHED -> published = in.readString();
                default -> in.skipField(tag);
            }
        }
        Decoded<R> decoded = decoder.decode(records);
        if (decoded.rejected() > 0) {
            throw new IOException("the head answer holds " + decoded.rejected() + " records that do not decode: "
                    + decoded.message());
        }
        return new Part<>(blockId, decoded.records(), published, problem);
    }

    @FunctionalInterface
    private interface Encoder<R> {
        byte[] encode(List<R> records);
    }

    @FunctionalInterface
    private interface Decoder<R> {
        Decoded<R> decode(byte[] bytes) throws IOException;
    }
}
