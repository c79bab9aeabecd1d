package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
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
 * The Arrow schema of a logs block, and the vectors of one batch bound for writing or reading rows.
 * Column by column, see {@code docs/FORMAT.md}, "Logs block schema".
 */
public final class LogColumns extends RecordColumns<LogRecord> {

    public static final String TIME = "time_unix_nano";
    public static final String OBSERVED_TIME = "observed_time_unix_nano";
    public static final String EVENT_TIME = "event_time_unix_nano";
    public static final String SEVERITY_NUMBER = "severity_number";
    public static final String SEVERITY_TEXT = "severity_text";
    public static final String BODY_STRING = "body_str";
    public static final String BODY_VALUE = "body_value";
    public static final String FLAGS = "flags";
    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";
    public static final String EVENT_NAME = "event_name";

    /** The schema of every logs block this writer version produces. */
    public static final Schema SCHEMA = schema();

    private final BigIntVector time;
    private final BigIntVector observedTime;
    private final BigIntVector eventTime;
    private final IntVector severityNumber;
    private final VarCharVector severityText;
    private final VarCharVector bodyString;
    private final VarBinaryVector bodyValue;
    private final IntVector droppedAttributes;
    private final IntVector flags;
    private final FixedSizeBinaryVector traceId;
    private final FixedSizeBinaryVector spanId;
    private final VarCharVector eventName;

    /** Binds the vectors of a root that holds every column of {@link #SCHEMA}. */
    public LogColumns(VectorSchemaRoot root) {
        super(root);
        time = Vectors.vector(root, TIME);
        observedTime = Vectors.vector(root, OBSERVED_TIME);
        eventTime = Vectors.vector(root, EVENT_TIME);
        severityNumber = Vectors.vector(root, SEVERITY_NUMBER);
        severityText = Vectors.vector(root, SEVERITY_TEXT);
        bodyString = Vectors.vector(root, BODY_STRING);
        bodyValue = Vectors.vector(root, BODY_VALUE);
        droppedAttributes = Vectors.vector(root, DROPPED_ATTRIBUTES);
        flags = Vectors.vector(root, FLAGS);
        traceId = Vectors.vector(root, TRACE_ID);
        spanId = Vectors.vector(root, SPAN_ID);
        eventName = Vectors.vector(root, EVENT_NAME);
    }

    private static Schema schema() {
        List<Field> fields = new ArrayList<>(List.of(
                Vectors.int64(TIME),
                Vectors.int64(OBSERVED_TIME),
                Vectors.int64(EVENT_TIME),
                Vectors.int32(SEVERITY_NUMBER),
                Vectors.nullableUtf8(SEVERITY_TEXT),
                Vectors.nullableUtf8(BODY_STRING),
                Vectors.binary(BODY_VALUE),
                AttributeColumn.field(ATTRIBUTES),
                Vectors.int32(DROPPED_ATTRIBUTES),
                Vectors.int32(FLAGS),
                Vectors.fixedBinary(TRACE_ID, 16, true),
                Vectors.fixedBinary(SPAN_ID, 8, true),
                Vectors.nullableUtf8(EVENT_NAME)));
        fields.addAll(ResourceScopeColumns.FIELDS);
        return new Schema(fields);
    }

    @Override
    public void write(int row, LogRecord r, Resource resource, Scope scope) {
        time.set(row, r.timeUnixNano());
        observedTime.set(row, r.observedTimeUnixNano());
        eventTime.set(row, r.eventTimeUnixNano());
        severityNumber.set(row, r.severityNumber());
        Vectors.setNullableString(severityText, row, r.severityText());
        if (r.body() instanceof AnyValue.Str s) {
            Vectors.setString(bodyString, row, s.value());
        } else {
            bodyValue.setSafe(row, ValueCodec.encodeValue(r.body()));
        }
        attributes.write(row, r.attributes());
        droppedAttributes.set(row, r.droppedAttributesCount());
        flags.set(row, r.flags());
        Vectors.setBytesOrNull(traceId, row, r.traceId().unsafeArray());
        Vectors.setBytesOrNull(spanId, row, r.spanId().unsafeArray());
        Vectors.setNullableString(eventName, row, r.eventName());
        resourceScope.write(row, resource, scope);
    }

    @Override
    LogRecord decode(int row) throws CorruptValueException {
        AnyValue body = bodyString.isNull(row)
                ? ValueCodec.decodeValue(bodyValue.get(row))
                : new AnyValue.Str(Vectors.getString(bodyString, row));
        return new LogRecord(
                resourceScope.resource(row),
                resourceScope.scope(row),
                time.get(row),
                observedTime.get(row),
                severityNumber.get(row),
                Vectors.getString(severityText, row),
                body,
                attributes.read(row),
                droppedAttributes.get(row),
                flags.get(row),
                Bytes.wrap(Vectors.getBytes(traceId, row)),
                Bytes.wrap(Vectors.getBytes(spanId, row)),
                Vectors.getString(eventName, row));
    }
}
