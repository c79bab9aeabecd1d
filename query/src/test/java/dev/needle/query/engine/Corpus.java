package dev.needle.query.engine;

import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A seeded corpus of span and log blocks for engine tests: traces of the four trace-id families
 * (random, X-Ray, zero-padded 64-bit, counter), blocks that follow each other in time, typed
 * attributes with ints, integral and fractional doubles, bools and strings that look like numbers.
 */
final class Corpus {

    static final long T0 = 1_764_446_100_000_000_000L;
    static final long BLOCK_NANOS = 60_000_000_000L;

    final List<SpanRecord> spans = new ArrayList<>();
    final List<LogRecord> logs = new ArrayList<>();
    final List<BlockRef> spanBlocks = new ArrayList<>();
    final List<BlockRef> logBlocks = new ArrayList<>();
    final List<Bytes> traceIds = new ArrayList<>();
    private final SplittableRandom random;
    private final List<Resource> resources = new ArrayList<>();
    private final Scope scope = new Scope("io.test", "1.0", List.of(KeyValue.of("scope.kind", "http")), 0, "");
    private int counter;

    private Corpus(long seed) {
        random = new SplittableRandom(seed);
        for (String service : List.of("checkout", "cart", "payment", "frontend")) {
            resources.add(new Resource(List.of(KeyValue.of("service.name", service),
                    KeyValue.of("k8s.pod.name", service + "-" + random.nextInt(3))), 0, ""));
        }
    }

    /** Writes {@code blocks} span blocks and as many log blocks of about {@code perBlock} records each. */
    static Corpus write(BlockStore store, BufferAllocator allocator, TenantId tenant, long seed, int blocks, int perBlock)
            throws IOException {
        Corpus c = new Corpus(seed);
        BlockWriter writer = new BlockWriter(store, allocator, 64);
        for (int b = 0; b < blocks; b++) {
            List<SpanRecord> blockSpans = new ArrayList<>();
            List<LogRecord> blockLogs = new ArrayList<>();
            while (blockSpans.size() < perBlock) {
                Bytes trace = c.traceId();
                c.traceIds.add(trace);
                int n = 1 + c.random.nextInt(8);
                for (int i = 0; i < n; i++) {
                    SpanRecord s = c.span(trace, T0 + b * BLOCK_NANOS + c.random.nextLong(BLOCK_NANOS));
                    blockSpans.add(s);
                    if (c.random.nextInt(3) == 0) {
                        blockLogs.add(c.log(s));
                    }
                }
            }
            // One trace in ten also has a late span in the next block, so traces cross blocks.
            c.spans.addAll(blockSpans);
            c.logs.addAll(blockLogs);
            c.spanBlocks.add(writer.writeSpans(tenant, blockSpans).ref());
            if (!blockLogs.isEmpty()) {
                c.logBlocks.add(writer.writeLogs(tenant, blockLogs).ref());
            }
        }
        List<SpanRecord> late = new ArrayList<>();
        for (int i = 0; i < c.traceIds.size(); i += 10) {
            late.add(c.span(c.traceIds.get(i), T0 + blocks * BLOCK_NANOS + c.random.nextLong(BLOCK_NANOS)));
        }
        c.spans.addAll(late);
        c.spanBlocks.add(writer.writeSpans(tenant, late).ref());
        return c;
    }

    /**
     * Flips the lowest bit of the last byte of the first place {@code value} occurs in {@code file}:
     * inside a record batch of a data.arrow, a value that still decodes, only to something else.
     */
    /** Writes the store's index of the tenant's blocks, both signals, as a server's start does. */
    static void writeIndex(BlockStore store, TenantId tenant) throws IOException {
        for (Signal signal : Signal.values()) {
            new BlockIndexWriter(store).reconcile(tenant, signal);
        }
    }

    static void flipOneBit(Path file, byte[] value) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int at = 0; at + value.length <= bytes.length; at++) {
            if (Arrays.equals(bytes, at, at + value.length, value, 0, value.length)) {
                bytes[at + value.length - 1] ^= 1;
                Files.write(file, bytes);
                return;
            }
        }
        throw new IllegalArgumentException(file + " does not hold the value to flip");
    }

    /** An id of the same family as the corpus's that no span has. */
    Bytes absentTraceId() {
        while (true) {
            Bytes id = traceId();
            if (!traceIds.contains(id)) {
                return id;
            }
        }
    }

    private Bytes traceId() {
        ByteBuffer b = ByteBuffer.allocate(16);
        switch (random.nextInt(4)) {
            case 0 -> b.putLong(random.nextLong()).putLong(random.nextLong());
            case 1 -> b.putInt(1_764_446_100 + random.nextInt(600)).putInt(random.nextInt()).putLong(random.nextLong());
            case 2 -> b.putLong(0).putLong(random.nextLong() | 1);
            default -> b.putInt(0x5eed0000).putInt(++counter * 7919).putLong(0x0123456789abcdefL);
        }
        return Bytes.wrap(b.array());
    }

    private SpanRecord span(Bytes trace, long start) {
        byte[] spanId = new byte[8];
        random.nextBytes(spanId);
        spanId[0] |= 1;
        List<KeyValue> attributes = new ArrayList<>();
        attributes.add(KeyValue.of("http.response.status_code", random.nextInt(10) == 0 ? 500 : 200));
        attributes.add(KeyValue.of("http.route", "/api/" + random.nextInt(20)));
        attributes.add(new KeyValue("sampling.ratio", AnyValue.of(random.nextBoolean() ? 0.25 : 1.0)));
        attributes.add(new KeyValue("cache.hit", AnyValue.of(random.nextBoolean())));
        attributes.add(KeyValue.of("code", random.nextBoolean() ? "200" : "404"));
        if (random.nextInt(4) == 0) {
            attributes.add(new KeyValue("retries", AnyValue.of((double) random.nextInt(3))));
        }
        attributes.add(KeyValue.of("user.id", "u" + random.nextInt(5000)));
        Resource resource = resources.get(random.nextInt(resources.size()));
        String name = "op-" + random.nextInt(12);
        int kind = 1 + random.nextInt(5);
        long end = start + (long) (1_000_000 * Math.exp(random.nextGaussian() * 2));
        int status = random.nextInt(8) == 0 ? 2 : random.nextInt(2);
        String message = status == 2 ? (random.nextBoolean() ? "timeout" : "connection refused") : "";
        List<SpanEvent> events = random.nextInt(4) != 0 ? List.of()
                : List.of(new SpanEvent(start, random.nextBoolean() ? "exception" : "retry", List.of(), 0));
        return SpanRecord.builder().resource(resource).scope(scope).traceId(trace).spanId(Bytes.wrap(spanId)).flags(1)
                .name(name).kind(kind).startTimeUnixNano(start).endTimeUnixNano(end).attributes(attributes)
                .events(events).statusCode(status).statusMessage(message).build();
    }

    private LogRecord log(SpanRecord s) {
        return LogRecord.builder().resource(s.resource()).scope(scope).timeUnixNano(s.startTimeUnixNano() + 1)
                .observedTimeUnixNano(s.startTimeUnixNano() + 2)
                .severityNumber(random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(24))
                .body(AnyValue.of("handled " + s.name()))
                .attributes(List.of(KeyValue.of("log.source", random.nextBoolean() ? "app" : "sidecar"),
                        KeyValue.of("attempt", random.nextInt(4))))
                .flags(1).traceId(s.traceId()).spanId(s.spanId()).build();
    }
}
