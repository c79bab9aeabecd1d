package dev.needle.blocks.index;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.CRC32C;

/**
 * The {@code COUNTS} file of a block: how many records it holds per second of event time and per
 * <em>group</em> — the few fields metrics queries split and filter by: for spans the service, kind and
 * status; for logs the resource (a Loki stream) and the severity — with, per span row, the spans per
 * power-of-two duration bucket, and per log row the bytes of the string bodies. Span names are not a
 * group's: with them a block has about as many rows as spans. A metrics query that looks only at
 * those fields (Grafana's Drilldown apps open with {@code { } | rate() by (resource.service.name)},
 * {@code { } | histogram_over_time(duration)}, Explore's log volume) adds up rows instead of opening
 * data.arrow: exact, since every count is. Derived data: a reader that finds the file missing or damaged
 * reads the block instead.
 *
 * <p>A row's <em>bucket</em> b holds the records whose event time t has b·W &lt; t ≤ (b+1)·W, W the
 * bucket width: left-open and right-closed, as both TraceQL's steps and LogQL's range windows are, so that
 * a query whose boundaries are multiples of W takes whole rows.
 *
 * <p>Little-endian. One file = 16-byte header + body. {@code varint} is unsigned LEB128 (at most 10
 * bytes), {@code zigzag} a signed value as protobuf's sint64, {@code string} a varint length + UTF-8.
 *
 * <table>
 * <caption>Layout</caption>
 * <tr><th>offset</th><th>size</th><th>field</th></tr>
 * <tr><td>0</td><td>4</td><td>magic, ASCII {@code NCNT}</td></tr>
 * <tr><td>4</td><td>1</td><td>version: {@link #VERSION_1}</td></tr>
 * <tr><td>5</td><td>3</td><td>pad (0)</td></tr>
 * <tr><td>8</td><td>4</td><td>body length n, at most {@link #MAX_BODY_BYTES}</td></tr>
 * <tr><td>12</td><td>4</td><td>CRC-32C of the body</td></tr>
 * <tr><td>16</td><td>n</td><td>body, below</td></tr>
 * </table>
 *
 * <table>
 * <caption>Body</caption>
 * <tr><th>field</th><th>holds</th></tr>
 * <tr><td>u8 signal</td><td>1 spans, 2 logs</td></tr>
 * <tr><td>varint W</td><td>bucket width, nanoseconds, &gt; 0</td></tr>
 * <tr><td>zigzag b0</td><td>the first bucket</td></tr>
 * <tr><td>varint k, k strings</td><td>the distinct keys of the records' own and their scopes' attributes,
 *     ascending by UTF-8 bytes: what a query needs to know is absent from every record</td></tr>
 * <tr><td>varint r, r resources</td><td>each: varint m + m bytes of its attributes in the value encoding
 *     ({@code ValueCodec}), varint dropped attributes count, string schema URL</td></tr>
 * <tr><td>varint g, g groups</td><td>each: varint resource index, string text, zigzag a, zigzag b; spans: a
 *     resource of only the span's resource's {@code service.name} attributes (none without one), no text
 *     (empty), the kind and the status code; logs: the record's resource, the severity text, the severity
 *     number and 0</td></tr>
 * <tr><td>varint n, n rows</td><td>ascending by (bucket, group), each distinct: varint bucket − b0, varint
 *     group, varint count (&gt; 0), then spans: varint h, h × (u8 e, varint count), e ascending in 1..64: the
 *     spans of duration d ≥ 2 ns with 2^(e−1) &lt; d ≤ 2^e (Tempo's log2 buckets); logs: varint bytes of the
 *     string bodies' UTF-8, varint count of records whose body is not a string</td></tr>
 * </table>
 *
 * <p>Bounds (the writer's): a block of more than {@link #MAX_GROUPS} groups, or whose body would pass
 * {@link #MAX_BODY_BYTES}, gets no file.
 */
public final class BlockCounts {

    /** The file's name in a block. */
    public static final String FILE = "COUNTS";
    /** The layout above. */
    public static final int VERSION_1 = 1;
    /** The bucket width the writer uses: one second, which any whole-second step or range is a multiple of. */
    public static final long WIDTH_NANOS = 1_000_000_000L;
    /** Past this many groups a block gets no file. */
    public static final int MAX_GROUPS = 65_536;
    /** The largest body written or read. */
    public static final int MAX_BODY_BYTES = 16 << 20;
    /** Header bytes before the body. */
    public static final int HEADER_BYTES = 16;

    /** The one resource attribute a span's group keeps. */
    public static final String SERVICE_NAME = "service.name";

    private static final byte[] MAGIC = {'N', 'C', 'N', 'T'};
    private static final int SPANS = 1;
    private static final int LOGS = 2;

    private final Signal signal;
    private final long width;
    private final long firstBucket;
    private final Set<String> keys;
    private final List<Resource> resources;
    private final List<Group> groups;
    private final Rows rows;

    /**
     * What a row is counted by.
     *
     * @param resource an index into {@link #resources()}; spans: a resource of only the {@code service.name}
     *                 attributes of the span's
     * @param text     spans: empty; logs: the severity text
     * @param a        spans: the kind (OTLP's number); logs: the severity number
     * @param b        spans: the status code; logs: 0
     */
    public record Group(int resource, String text, int a, int b) {
    }

    /**
     * The rows, column by column, ascending by (bucket, group).
     *
     * @param bucket     bucket − first bucket, per row
     * @param group      index into {@link #groups()}, per row
     * @param count      records, per row
     * @param histogram  spans: row i's buckets are {@code exponents/histogramCounts[histogram[i] .. histogram[i+1])};
     *                   logs: null
     * @param exponents  spans: e of each duration bucket; logs: null
     * @param histogramCounts spans: spans of each duration bucket; logs: null
     * @param bytes      logs: UTF-8 bytes of the string bodies, per row; spans: null
     * @param notStrings logs: records whose body is not a string, per row; spans: null
     */
    public record Rows(long[] bucket, int[] group, long[] count, int[] histogram, byte[] exponents,
                       long[] histogramCounts, long[] bytes, long[] notStrings) {

        /** How many rows. */
        public int size() {
            return count.length;
        }
    }

    private BlockCounts(Signal signal, long width, long firstBucket, Set<String> keys, List<Resource> resources,
                        List<Group> groups, Rows rows) {
        this.signal = signal;
        this.width = width;
        this.firstBucket = firstBucket;
        this.keys = Collections.unmodifiableSet(keys);
        this.resources = List.copyOf(resources);
        this.groups = List.copyOf(groups);
        this.rows = rows;
    }

    /** The signal of the block. */
    public Signal signal() {
        return signal;
    }

    /** The bucket width W, nanoseconds. */
    public long widthNanos() {
        return width;
    }

    /** The first bucket b0: row bucket offsets count from it. */
    public long firstBucket() {
        return firstBucket;
    }

    /** The end of row {@code row}'s bucket, (b0 + offset + 1)·W: a time inside it, and its last. */
    public long bucketEndNanos(int row) {
        return (firstBucket + rows.bucket[row] + 1) * width;
    }

    /** The distinct keys of the records' own and their scopes' attributes. */
    public Set<String> attributeKeys() {
        return keys;
    }

    /** The distinct resources, which groups point into. */
    public List<Resource> resources() {
        return resources;
    }

    /** The distinct groups, which rows point into. */
    public List<Group> groups() {
        return groups;
    }

    /** The rows. */
    public Rows rows() {
        return rows;
    }

    /** The bucket of event time {@code t}: b with b·W &lt; t ≤ (b+1)·W. */
    public static long bucketOf(long t, long width) {
        return Math.floorDiv(t - 1, width);
    }

    /** Tempo's log2 bucket of a duration: e with 2^(e−1) &lt; d ≤ 2^e; 0 for a duration below 2 ns, which no bucket holds. */
    public static int exponentOf(long durationNanos) {
        return durationNanos < 2 ? 0 : 64 - Long.numberOfLeadingZeros(durationNanos - 1);
    }

    /** Counts a block's records as the block writer gives them, in any order. */
    public static final class Builder {
        private final Signal signal;
        private final long width;
        private final Set<String> keys = new TreeSet<>(BlockCounts::compareUtf8);
        private final Map<Resource, Integer> resourceIds = new IdentityHashMap<>();
        private final List<Resource> resources = new ArrayList<>();
        private final Map<Group, Integer> groupIds = new HashMap<>();
        private final List<Group> groups = new ArrayList<>();
        private final Map<Cell, Acc> cells = new HashMap<>();
        private List<KeyValue> lastAttributes;
        private List<KeyValue> lastScopeAttributes;

        /** A builder for {@code signal}'s blocks with buckets of {@link #WIDTH_NANOS}. */
        public Builder(Signal signal) {
            this(signal, WIDTH_NANOS);
        }

        Builder(Signal signal, long widthNanos) {
            this.signal = signal;
            this.width = widthNanos;
        }

        /** Counts a span. */
        public void span(SpanRecord s, Resource resource, Scope scope) {
            keys(s.attributes(), scope);
            Acc acc = acc(s.startTimeUnixNano(), resource, "", s.kind(), s.statusCode());
            acc.count++;
            int e = exponentOf(s.durationNano());
            if (e > 0) {
                acc.histogram[e]++;
            }
        }

        /** Counts a log record. */
        public void log(LogRecord r, Resource resource, Scope scope) {
            keys(r.attributes(), scope);
            Acc acc = acc(r.eventTimeUnixNano(), resource, r.severityText(), r.severityNumber(), 0);
            acc.count++;
            if (r.body() instanceof AnyValue.Str str) {
                acc.bytes += utf8Length(str.value());
            } else {
                acc.notStrings++;
            }
        }

        private void keys(List<KeyValue> attributes, Scope scope) {
            // Records of one resource and scope often share key lists: skip the ones just seen.
            if (attributes != lastAttributes) {
                attributes.forEach(kv -> keys.add(kv.key()));
                lastAttributes = attributes;
            }
            if (scope.attributes() != lastScopeAttributes) {
                scope.attributes().forEach(kv -> keys.add(kv.key()));
                lastScopeAttributes = scope.attributes();
            }
        }

        private Acc acc(long time, Resource resource, String text, int a, int b) {
            Integer r = resourceIds.get(resource);
            if (r == null) {
                Resource kept = signal == Signal.SPANS ? serviceOnly(resource) : resource;
                r = resources.indexOf(kept);
                if (r < 0) {
                    r = resources.size();
                    resources.add(kept);
                }
                resourceIds.put(resource, r);
            }
            Group group = new Group(r, text, a, b);
            Integer g = groupIds.get(group);
            if (g == null) {
                g = groups.size();
                groups.add(group);
                groupIds.put(group, g);
            }
            return cells.computeIfAbsent(new Cell(bucketOf(time, width), g), c -> new Acc(signal));
        }

        private static Resource serviceOnly(Resource resource) {
            return new Resource(resource.attributes().stream().filter(kv -> kv.key().equals(SERVICE_NAME)).toList(), 0, "");
        }

        /** The file's bytes, or empty when the block has no records or passes the bounds. */
        public Optional<byte[]> file() {
            if (cells.isEmpty() || groups.size() > MAX_GROUPS) {
                return Optional.empty();
            }
            List<Cell> order = new ArrayList<>(cells.keySet());
            order.sort((x, y) -> x.bucket != y.bucket ? Long.compare(x.bucket, y.bucket) : Integer.compare(x.group, y.group));
            long first = order.get(0).bucket;
            int n = order.size();
            Rows rows = signal == Signal.SPANS
                    ? spanRows(order, first)
                    : new Rows(new long[n], new int[n], new long[n], null, null, null, new long[n], new long[n]);
            for (int i = 0; i < n; i++) {
                Cell c = order.get(i);
                Acc acc = cells.get(c);
                rows.bucket[i] = c.bucket - first;
                rows.group[i] = c.group;
                rows.count[i] = acc.count;
                if (signal == Signal.LOGS) {
                    rows.bytes[i] = acc.bytes;
                    rows.notStrings[i] = acc.notStrings;
                }
            }
            byte[] file = new BlockCounts(signal, width, first, keys, resources, groups, rows).encode();
            return file.length - HEADER_BYTES > MAX_BODY_BYTES ? Optional.empty() : Optional.of(file);
        }

        private Rows spanRows(List<Cell> order, long first) {
            int n = order.size();
            int[] histogram = new int[n + 1];
            int total = 0;
            for (int i = 0; i < n; i++) {
                histogram[i] = total;
                for (long c : cells.get(order.get(i)).histogram) {
                    total += c > 0 ? 1 : 0;
                }
            }
            histogram[n] = total;
            byte[] exponents = new byte[total];
            long[] counts = new long[total];
            int at = 0;
            for (Cell c : order) {
                long[] h = cells.get(c).histogram;
                for (int e = 1; e < h.length; e++) {
                    if (h[e] > 0) {
                        exponents[at] = (byte) e;
                        counts[at++] = h[e];
                    }
                }
            }
            return new Rows(new long[n], new int[n], new long[n], histogram, exponents, counts, null, null);
        }
    }

    /** A row's key while building. */
    private record Cell(long bucket, int group) {
    }

    /** A row's sums while building. */
    private static final class Acc {
        long count;
        final long[] histogram;
        long bytes;
        long notStrings;

        Acc(Signal signal) {
            histogram = signal == Signal.SPANS ? new long[65] : null;
        }
    }

    /** This file's bytes. */
    public byte[] encode() {
        Body body = new Body();
        body.out.write(signal == Signal.SPANS ? SPANS : LOGS);
        body.varint(width);
        body.zigzag(firstBucket);
        body.varint(keys.size());
        keys.forEach(body::string);
        body.varint(resources.size());
        for (Resource r : resources) {
            byte[] attributes = ValueCodec.encodeAttributes(r.attributes());
            body.varint(attributes.length);
            body.out.writeBytes(attributes);
            body.varint(Integer.toUnsignedLong(r.droppedAttributesCount()));
            body.string(r.schemaUrl());
        }
        body.varint(groups.size());
        for (Group g : groups) {
            body.varint(g.resource());
            body.string(g.text());
            body.zigzag(g.a());
            body.zigzag(g.b());
        }
        body.varint(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            body.varint(rows.bucket[i]);
            body.varint(rows.group[i]);
            body.varint(rows.count[i]);
            if (signal == Signal.SPANS) {
                body.varint(rows.histogram[i + 1] - rows.histogram[i]);
                for (int h = rows.histogram[i]; h < rows.histogram[i + 1]; h++) {
                    body.out.write(rows.exponents[h]);
                    body.varint(rows.histogramCounts[h]);
                }
            } else {
                body.varint(rows.bytes[i]);
                body.varint(rows.notStrings[i]);
            }
        }
        byte[] bytes = body.out.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        ByteBuffer file = ByteBuffer.allocate(HEADER_BYTES + bytes.length).order(ByteOrder.LITTLE_ENDIAN);
        file.put(MAGIC).put((byte) VERSION_1).put(new byte[3]).putInt(bytes.length).putInt((int) crc.getValue())
                .put(bytes);
        return file.array();
    }

    /**
     * Reads a file; every problem is a {@link CorruptCountsException} whose message names {@code what}
     * and says what was expected, and nothing is allocated from a count before it is checked.
     */
    public static BlockCounts decode(byte[] file, String what) throws CorruptCountsException {
        if (file.length < HEADER_BYTES) {
            throw new CorruptCountsException(what + ": " + file.length + " bytes, shorter than the " + HEADER_BYTES
                    + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[4];
        in.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new CorruptCountsException(what + ": magic is not NCNT");
        }
        int version = in.get() & 0xff;
        if (version != VERSION_1) {
            throw new CorruptCountsException(what + ": unknown version " + version + ", expected " + VERSION_1);
        }
        if (in.get() != 0 || in.get() != 0 || in.get() != 0) {
            throw new CorruptCountsException(what + ": the pad bytes 5..7 are not 0");
        }
        long length = Integer.toUnsignedLong(in.getInt());
        if (length > MAX_BODY_BYTES || length != file.length - HEADER_BYTES) {
            throw new CorruptCountsException(what + ": the header says a body of " + length
                    + " bytes, the file holds " + (file.length - HEADER_BYTES));
        }
        int expected = in.getInt();
        CRC32C crc = new CRC32C();
        crc.update(file, HEADER_BYTES, file.length - HEADER_BYTES);
        if ((int) crc.getValue() != expected) {
            throw new CorruptCountsException(String.format("%s: checksum failed: expected crc32c 0x%08x, actual 0x%08x",
                    what, expected, (int) crc.getValue()));
        }
        try {
            return body(in);
        } catch (RuntimeException | CorruptValueException e) {
            // An underflow or a bad count inside a body whose CRC holds: written wrong, not damaged.
            throw new CorruptCountsException(what + ": malformed body at byte " + in.position() + ": " + e.getMessage());
        }
    }

    private static BlockCounts body(ByteBuffer in) throws CorruptValueException {
        int signalByte = in.get() & 0xff;
        if (signalByte != SPANS && signalByte != LOGS) {
            throw new IllegalArgumentException("unknown signal " + signalByte);
        }
        Signal signal = signalByte == SPANS ? Signal.SPANS : Signal.LOGS;
        long width = varint(in);
        if (width <= 0) {
            throw new IllegalArgumentException("a bucket width of " + width);
        }
        long first = zigzag(in);
        int keyCount = count(in, 1);
        Set<String> keys = new TreeSet<>(BlockCounts::compareUtf8);
        for (int i = 0; i < keyCount; i++) {
            keys.add(string(in));
        }
        int resourceCount = count(in, 3);
        List<Resource> resources = new ArrayList<>(resourceCount);
        for (int i = 0; i < resourceCount; i++) {
            byte[] attributes = new byte[count(in, 1)];
            in.get(attributes);
            long dropped = varint(in);
            if (dropped > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("a dropped attributes count of " + dropped);
            }
            resources.add(new Resource(ValueCodec.decodeAttributes(attributes), (int) dropped, string(in)));
        }
        int groupCount = count(in, 4);
        List<Group> groups = new ArrayList<>(groupCount);
        for (int i = 0; i < groupCount; i++) {
            groups.add(new Group(index(in, resourceCount), string(in), int32(zigzag(in)), int32(zigzag(in))));
        }
        int n = count(in, signal == Signal.SPANS ? 4 : 5);
        Rows rows = signal == Signal.SPANS
                ? new Rows(new long[n], new int[n], new long[n], new int[n + 1], null, null, null, null)
                : new Rows(new long[n], new int[n], new long[n], null, null, null, new long[n], new long[n]);
        // Grown as read: a span block has about nine duration buckets per row, too many to box.
        byte[] exponents = new byte[signal == Signal.SPANS ? Math.max(16, n * 4) : 0];
        long[] histogramCounts = new long[exponents.length];
        int histograms = 0;
        long lastBucket = -1;
        int lastGroup = -1;
        for (int i = 0; i < n; i++) {
            long bucket = varint(in);
            int group = index(in, groupCount);
            if (bucket < lastBucket || bucket == lastBucket && group <= lastGroup) {
                throw new IllegalArgumentException("row " + i + " is not after the row before it");
            }
            lastBucket = bucket;
            lastGroup = group;
            rows.bucket[i] = bucket;
            rows.group[i] = group;
            rows.count[i] = varint(in);
            if (rows.count[i] == 0) {
                throw new IllegalArgumentException("row " + i + " counts nothing");
            }
            if (signal == Signal.SPANS) {
                rows.histogram[i] = histograms;
                int h = count(in, 2);
                if (histograms + h > exponents.length) {
                    int size = Math.max(histograms + h, exponents.length * 2);
                    exponents = Arrays.copyOf(exponents, size);
                    histogramCounts = Arrays.copyOf(histogramCounts, size);
                }
                int lastExponent = 0;
                for (int j = 0; j < h; j++) {
                    int e = in.get() & 0xff;
                    if (e <= lastExponent || e > 64) {
                        throw new IllegalArgumentException("duration bucket " + e + " after " + lastExponent);
                    }
                    lastExponent = e;
                    exponents[histograms] = (byte) e;
                    histogramCounts[histograms++] = varint(in);
                }
            } else {
                rows.bytes[i] = varint(in);
                rows.notStrings[i] = varint(in);
            }
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the last row");
        }
        if (signal == Signal.SPANS) {
            rows.histogram[n] = histograms;
            rows = new Rows(rows.bucket, rows.group, rows.count, rows.histogram, Arrays.copyOf(exponents, histograms),
                    Arrays.copyOf(histogramCounts, histograms), null, null);
        }
        return new BlockCounts(signal, width, first, keys, resources, groups, rows);
    }

    private static long varint(ByteBuffer in) {
        byte first = in.get(in.position());
        if (first >= 0) {
            // Most values in a file are below 128: one byte.
            in.position(in.position() + 1);
            return first;
        }
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.get() & 0xff;
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("a varint longer than 10 bytes");
    }

    private static long zigzag(ByteBuffer in) {
        long v = varint(in);
        return (v >>> 1) ^ -(v & 1);
    }

    private static int int32(long v) {
        if (v != (int) v) {
            throw new IllegalArgumentException(v + " is not a 32-bit value");
        }
        return (int) v;
    }

    /** A varint count whose items, at {@code minBytes} each, fit in what is left: checked before any allocation. */
    private static int count(ByteBuffer in, int minBytes) {
        long n = varint(in);
        if (n < 0 || n > in.remaining() / minBytes) {
            throw new IllegalArgumentException("a count of " + Long.toUnsignedString(n) + " does not fit in the "
                    + in.remaining() + " bytes left");
        }
        return (int) n;
    }

    private static int index(ByteBuffer in, int size) {
        long i = varint(in);
        if (i < 0 || i >= size) {
            throw new IllegalArgumentException("index " + Long.toUnsignedString(i) + " of " + size);
        }
        return (int) i;
    }

    private static String string(ByteBuffer in) {
        int n = count(in, 1);
        ByteBuffer bytes = in.slice();
        bytes.limit(n);
        in.position(in.position() + n);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("a string is not UTF-8");
        }
    }

    /** Strings in the order of their UTF-8 bytes (unsigned), which Java's UTF-16 order is not. */
    private static int compareUtf8(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** The UTF-8 length of a string, without encoding it (an unpaired surrogate counts as the one byte '?' it encodes to). */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** The body as it is written. */
    private static final class Body {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void varint(long v) {
            while ((v & ~0x7fL) != 0) {
                out.write((int) (v & 0x7f) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
        }

        void zigzag(long v) {
            varint((v << 1) ^ (v >> 63));
        }

        void string(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            varint(bytes.length);
            out.writeBytes(bytes);
        }
    }

    /** A COUNTS file that cannot be trusted: its reader reads the block instead. */
    public static final class CorruptCountsException extends IOException {
        CorruptCountsException(String message) {
            super(message);
        }
    }
}
