package dev.needle.blocks.otlp;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Rewrites a request's wire bytes as another encoder could have sent them, at random: the fields
 * of a message in another order, some sent twice (merged when singular), unknown fields of every
 * wire type between them, groups included, and known field numbers with another wire type.
 */
final class Reshuffle {

    static final String TRACES = "ExportTraceServiceRequest";
    static final String LOGS = "ExportLogsServiceRequest";

    /** For each message, which of its length-delimited fields are messages, and of which kind. */
    private static final Map<String, Map<Integer, String>> MESSAGES = Map.ofEntries(
            Map.entry(TRACES, Map.of(1, "ResourceSpans")),
            Map.entry(LOGS, Map.of(1, "ResourceLogs")),
            Map.entry("ResourceSpans", Map.of(1, "Resource", 2, "ScopeSpans")),
            Map.entry("ResourceLogs", Map.of(1, "Resource", 2, "ScopeLogs")),
            Map.entry("Resource", Map.of(1, "KeyValue", 3, "EntityRef")),
            Map.entry("EntityRef", Map.of()),
            Map.entry("ScopeSpans", Map.of(1, "Scope", 2, "Span")),
            Map.entry("ScopeLogs", Map.of(1, "Scope", 2, "LogRecord")),
            Map.entry("Scope", Map.of(3, "KeyValue")),
            Map.entry("Span", Map.of(9, "KeyValue", 11, "Event", 13, "Link", 15, "Status")),
            Map.entry("Event", Map.of(3, "KeyValue")),
            Map.entry("Link", Map.of(4, "KeyValue")),
            Map.entry("Status", Map.of()),
            Map.entry("LogRecord", Map.of(5, "AnyValue", 6, "KeyValue")),
            Map.entry("KeyValue", Map.of(2, "AnyValue")),
            Map.entry("AnyValue", Map.of(5, "ArrayValue", 6, "KeyValueList")),
            Map.entry("ArrayValue", Map.of(1, "AnyValue")),
            Map.entry("KeyValueList", Map.of(1, "KeyValue")));

    private Reshuffle() {
    }

    /** {@code body}, a message of kind {@code message}, rewritten. */
    static byte[] message(byte[] body, String message, SplittableRandom random) {
        try {
            return rewrite(body, message, 0, random);
        } catch (IOException e) {
            throw new UncheckedIOException("the encoder's own bytes do not parse", e);
        }
    }

    private static byte[] rewrite(byte[] body, String message, int depth, SplittableRandom random) throws IOException {
        Map<Integer, String> nested = MESSAGES.get(message);
        List<byte[]> fields = new ArrayList<>();
        CodedInputStream in = CodedInputStream.newInstance(body);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            int number = WireFormat.getTagFieldNumber(tag);
            ByteArrayOutputStream field = new ByteArrayOutputStream();
            WireBytes.varint(field, tag);
            switch (WireFormat.getTagWireType(tag)) {
                case WireFormat.WIRETYPE_VARINT -> WireBytes.varint(field, in.readRawVarint64());
                case WireFormat.WIRETYPE_FIXED64 -> fixed(field, in.readRawLittleEndian64(), 8);
                case WireFormat.WIRETYPE_FIXED32 -> fixed(field, in.readRawLittleEndian32(), 4);
                default -> {
                    byte[] payload = in.readByteArray();
                    if (nested.containsKey(number)) {
                        payload = rewrite(payload, nested.get(number), depth + 1, random);
                    }
                    WireBytes.varint(field, payload.length);
                    field.writeBytes(payload);
                }
            }
            fields.add(field.toByteArray());
            // Not deep down: a value nested 128 deep would double at random on every level.
            if (depth < 8 && random.nextInt(20) == 0) {
                fields.add(field.toByteArray());
            }
            if (random.nextInt(10) == 0) {
                fields.add(unknown(random, 0));
            }
        }
        if (random.nextInt(4) == 0) {
            for (int i = fields.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                byte[] t = fields.get(i);
                fields.set(i, fields.get(j));
                fields.set(j, t);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        fields.forEach(out::writeBytes);
        return out.toByteArray();
    }

    /** A field no message here knows, or a known number with another wire type than its own. */
    private static byte[] unknown(SplittableRandom random, int depth) {
        int number = random.nextInt(3) == 0 ? 1 + random.nextInt(16) : 17 + random.nextInt(100);
        int wireType = random.nextInt(depth < 3 ? 5 : 4);
        wireType = wireType == 4 ? WireFormat.WIRETYPE_START_GROUP : wireType == 3 ? WireFormat.WIRETYPE_FIXED32 : wireType;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // A length-delimited known number would be read as the field itself; keep those unknown.
        if (wireType == WireFormat.WIRETYPE_LENGTH_DELIMITED && number <= 16) {
            number += 100;
        }
        WireBytes.varint(out, number << 3 | wireType);
        switch (wireType) {
            case WireFormat.WIRETYPE_VARINT -> WireBytes.varint(out, random.nextLong());
            case WireFormat.WIRETYPE_FIXED64 -> fixed(out, random.nextLong(), 8);
            case WireFormat.WIRETYPE_FIXED32 -> fixed(out, random.nextInt(), 4);
            case WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                byte[] payload = new byte[random.nextInt(6)];
                random.nextBytes(payload);
                WireBytes.varint(out, payload.length);
                out.writeBytes(payload);
            }
            default -> {
                for (int i = random.nextInt(3); i > 0; i--) {
                    out.writeBytes(unknown(random, depth + 1));
                }
                WireBytes.varint(out, number << 3 | WireFormat.WIRETYPE_END_GROUP);
            }
        }
        return out.toByteArray();
    }

    private static void fixed(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (v >>> (8 * i)));
        }
    }
}
