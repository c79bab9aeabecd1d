package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow schema of a spans block, and the vectors of one batch bound for writing or reading rows.
 * Column by column, see {@code docs/FORMAT.md}, "Spans block schema".
 */
public final class SpanColumns extends RecordColumns<SpanRecord> {

    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";
    public static final String PARENT_SPAN_ID = "parent_span_id";
    public static final String TRACE_STATE = "trace_state";
    public static final String FLAGS = "flags";
    public static final String NAME = "name";
    public static final String KIND = "kind";
    public static final String START_TIME = "start_time_unix_nano";
    public static final String END_TIME = "end_time_unix_nano";
    public static final String DURATION = "duration_nano";
    public static final String STATUS_CODE = "status_code";
    public static final String STATUS_MESSAGE = "status_message";
    public static final String EVENTS = "events";
    public static final String DROPPED_EVENTS = "dropped_events_count";
    public static final String LINKS = "links";
    public static final String DROPPED_LINKS = "dropped_links_count";

    private static final byte[] NO_BYTES = new byte[0];

    /** The schema of every spans block this writer version produces. */
    public static final Schema SCHEMA = schema();

    private final FixedSizeBinaryVector traceId;
    private final FixedSizeBinaryVector spanId;
    private final VarBinaryVector parentSpanId;
    private final VarCharVector traceState;
    private final IntVector flags;
    private final VarCharVector name;
    private final IntVector kind;
    private final BigIntVector start;
    private final BigIntVector end;
    private final BigIntVector duration;
    private final IntVector statusCode;
    private final VarCharVector statusMessage;
    private final IntVector droppedAttributes;
    private final VarBinaryVector events;
    private final IntVector droppedEvents;
    private final VarBinaryVector links;
    private final IntVector droppedLinks;

    /** Binds the vectors of a root that holds every column of {@link #SCHEMA}. */
    public SpanColumns(VectorSchemaRoot root) {
        super(root);
        traceId = Vectors.vector(root, TRACE_ID);
        spanId = Vectors.vector(root, SPAN_ID);
        parentSpanId = Vectors.vector(root, PARENT_SPAN_ID);
        traceState = Vectors.vector(root, TRACE_STATE);
        flags = Vectors.vector(root, FLAGS);
        name = Vectors.vector(root, NAME);
        kind = Vectors.vector(root, KIND);
        start = Vectors.vector(root, START_TIME);
        end = Vectors.vector(root, END_TIME);
        duration = Vectors.vector(root, DURATION);
        statusCode = Vectors.vector(root, STATUS_CODE);
        statusMessage = Vectors.vector(root, STATUS_MESSAGE);
        droppedAttributes = Vectors.vector(root, DROPPED_ATTRIBUTES);
        events = Vectors.vector(root, EVENTS);
        droppedEvents = Vectors.vector(root, DROPPED_EVENTS);
        links = Vectors.vector(root, LINKS);
        droppedLinks = Vectors.vector(root, DROPPED_LINKS);
    }

    private static Schema schema() {
        List<Field> fields = new ArrayList<>(List.of(
                Vectors.fixedBinary(TRACE_ID, 16, false),
                Vectors.fixedBinary(SPAN_ID, 8, false),
                Vectors.binary(PARENT_SPAN_ID),
                Vectors.nullableUtf8(TRACE_STATE),
                Vectors.int32(FLAGS),
                Vectors.utf8(NAME),
                Vectors.int32(KIND),
                Vectors.int64(START_TIME),
                Vectors.int64(END_TIME),
                Vectors.int64(DURATION),
                Vectors.int32(STATUS_CODE),
                Vectors.nullableUtf8(STATUS_MESSAGE),
                AttributeColumn.field(ATTRIBUTES),
                Vectors.int32(DROPPED_ATTRIBUTES),
                Vectors.binary(EVENTS),
                Vectors.int32(DROPPED_EVENTS),
                Vectors.binary(LINKS),
                Vectors.int32(DROPPED_LINKS)));
        fields.addAll(ResourceScopeColumns.FIELDS);
        return new Schema(fields);
    }

    @Override
    public void write(int row, SpanRecord s, Resource resource, Scope scope) {
        traceId.set(row, s.traceId().unsafeArray());
        spanId.set(row, s.spanId().unsafeArray());
        Vectors.setBytesOrNull(parentSpanId, row, s.parentSpanId().unsafeArray());
        Vectors.setNullableString(traceState, row, s.traceState());
        flags.set(row, s.flags());
        Vectors.setString(name, row, s.name());
        kind.set(row, s.kind());
        start.set(row, s.startTimeUnixNano());
        end.set(row, s.endTimeUnixNano());
        duration.set(row, s.durationNano());
        statusCode.set(row, s.statusCode());
        Vectors.setNullableString(statusMessage, row, s.statusMessage());
        attributes.write(row, s.attributes());
        droppedAttributes.set(row, s.droppedAttributesCount());
        Vectors.setBytesOrNull(events, row, s.events().isEmpty() ? NO_BYTES : ValueCodec.encodeEvents(s.events()));
        droppedEvents.set(row, s.droppedEventsCount());
        Vectors.setBytesOrNull(links, row, s.links().isEmpty() ? NO_BYTES : ValueCodec.encodeLinks(s.links()));
        droppedLinks.set(row, s.droppedLinksCount());
        resourceScope.write(row, resource, scope);
    }

    @Override
    SpanRecord decode(int row) throws CorruptValueException {
        // duration_nano is a copy of end − start that kernels and zone maps read in its place: a row
        // where they disagree would answer a duration query unlike its decoded record.
        if (duration.get(row) != end.get(row) - start.get(row)) {
            throw new CorruptValueException("duration_nano of row " + row + " is not its end minus its start", 0);
        }
        return new SpanRecord(
                resourceScope.resource(row),
                resourceScope.scope(row),
                Bytes.wrap(traceId.get(row)),
                Bytes.wrap(spanId.get(row)),
                Vectors.getString(traceState, row),
                Bytes.wrap(Vectors.getBytes(parentSpanId, row)),
                flags.get(row),
                Vectors.getString(name, row),
                kind.get(row),
                start.get(row),
                end.get(row),
                attributes.read(row),
                droppedAttributes.get(row),
                events.isNull(row) ? List.of() : ValueCodec.decodeEvents(events.get(row)),
                droppedEvents.get(row),
                links.isNull(row) ? List.of() : ValueCodec.decodeLinks(links.get(row)),
                droppedLinks.get(row),
                statusCode.get(row),
                Vectors.getString(statusMessage, row));
    }
}
