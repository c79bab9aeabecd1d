package dev.needle.query.cli;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;

/**
 * A data directory of known records for the CLI tests. The default tenant has six span blocks and
 * six log blocks an hour apart, the newest ending five minutes before the fixture was written, so
 * that {@code --since} picks whole blocks with minutes to spare. Trace {@link #treeId} is a tree
 * of five spans over two blocks, with two log records; tenant {@link #OTHER} has one trace.
 */
final class Fixture {

    static final TenantId TENANT = TenantId.DEFAULT;
    static final TenantId OTHER = TenantId.of("team-b");
    static final long MINUTE = 60_000_000_000L;
    static final long HOUR = 60 * MINUTE;
    static final int BLOCKS = 6;

    /** When the fixture was written, in Unix nanoseconds (whole milliseconds). */
    final long now;
    final List<SpanRecord> spans = new ArrayList<>();
    final List<LogRecord> logs = new ArrayList<>();
    final List<BlockRef> spanBlocks = new ArrayList<>();
    final List<SpanRecord> treeSpans = new ArrayList<>();
    final List<LogRecord> treeLogs = new ArrayList<>();
    final Bytes treeId = Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736");
    final Bytes otherTenantTraceId = Bytes.fromHex("0af7651916cd43dd8448eb211c80319c");
    /** The block that holds the tree's root (the older of its two blocks). */
    BlockRef treeBlock;

    private final SplittableRandom random = new SplittableRandom(42);
    private final Scope scope = new Scope("io.needle.test", "1.0", List.of(), 0, "");
    private final List<Resource> services = new ArrayList<>();

    private Fixture() {
        now = Instant.now().toEpochMilli() * 1_000_000L;
        for (String s : List.of("frontend", "checkout", "cart", "payment")) {
            services.add(new Resource(List.of(KeyValue.of("service.name", s)), 0, ""));
        }
    }

    /** The start of block {@code b}'s hour: its records lie 5 to 55 minutes after it. */
    long blockStart(int b) {
        return now - (BLOCKS - b) * HOUR;
    }

    static Fixture write(Path data) throws IOException {
        Fixture f = new Fixture();
        FsBlockStore store = new FsBlockStore(data);
        try (RootAllocator allocator = new RootAllocator()) {
            // Small batches, so that zone maps have batches to skip.
            BlockWriter writer = new BlockWriter(store, allocator, 16);
            for (int b = 0; b < BLOCKS; b++) {
                List<SpanRecord> blockSpans = new ArrayList<>();
                List<LogRecord> blockLogs = new ArrayList<>();
                long t = f.blockStart(b) + 5 * MINUTE;
                for (int trace = 0; trace < 12; trace++) {
                    byte[] id = new byte[16];
                    f.random.nextBytes(id);
                    SpanRecord root = f.span(Bytes.wrap(id), Bytes.EMPTY, f.services.get(trace % 4), "GET /api/" + trace,
                            t, 40 * 1_000_000L, trace % 5 == 0 ? 2 : 0, "");
                    SpanRecord child = f.span(root.traceId(), root.spanId(), f.services.get((trace + 1) % 4), "work",
                            t + 1_000_000, 20 * 1_000_000L, 0, "");
                    blockSpans.add(root);
                    blockSpans.add(child);
                    blockLogs.add(f.log(root, t + 2_000_000, 9 + 4 * (trace % 3), "handled " + root.name()));
                    t += 4 * MINUTE;
                }
                if (b == 2) {
                    f.tree(b, blockSpans, blockLogs);
                }
                if (b == 3) {
                    // The tree's last span lands an hour later, in the next block.
                    SpanRecord root = f.treeSpans.get(0);
                    SpanRecord late = f.span(f.treeId, root.spanId(), f.services.get(1), "retry reservation",
                            f.blockStart(b) + 30 * MINUTE, 3_000_000L, 1, "");
                    f.treeSpans.add(late);
                    blockSpans.add(late);
                }
                BlockRef ref = writer.writeSpans(TENANT, blockSpans).ref();
                if (b == 2) {
                    f.treeBlock = ref;
                }
                f.spanBlocks.add(ref);
                f.spans.addAll(blockSpans);
                f.logs.addAll(blockLogs);
                writer.writeLogs(TENANT, blockLogs);
            }
            writer.writeSpans(OTHER, List.of(f.span(f.otherTenantTraceId, Bytes.EMPTY, f.services.get(0), "other tenant",
                    f.blockStart(5) + 10 * MINUTE, 1_000_000L, 0, "")));
        }
        return f;
    }

    /** The tree: frontend GET /checkout → (checkout reserve → cart SELECT cart), (payment charge, failing). */
    private void tree(int b, List<SpanRecord> blockSpans, List<LogRecord> blockLogs) {
        long t = blockStart(b) + 30 * MINUTE + 123_456_789;
        SpanRecord root = span(treeId, Bytes.EMPTY, services.get(0), "GET /checkout", t, 412_500_000L, 0, "");
        SpanRecord reserve = span(treeId, root.spanId(), services.get(1), "reserve", t + 1_200_000, 300_100_000L, 0, "");
        SpanRecord select = span(treeId, reserve.spanId(), services.get(2), "SELECT cart", t + 2_000_000, 12_000_000L, 0,
                "");
        SpanRecord charge = span(treeId, root.spanId(), services.get(3), "charge", t + 305_000_000, 100_000_000L, 2,
                "card declined");
        treeSpans.addAll(List.of(root, reserve, select, charge));
        blockSpans.addAll(treeSpans);
        treeLogs.add(log(charge, t + 306_000_000, 9, "charging card"));
        treeLogs.add(log(charge, t + 404_000_000, 17, "card declined\nby issuer"));
        blockLogs.addAll(treeLogs);
    }

    private SpanRecord span(Bytes traceId, Bytes parent, Resource resource, String name, long start, long duration,
                            int status, String message) {
        byte[] spanId = new byte[8];
        random.nextBytes(spanId);
        spanId[0] |= 1;
        return SpanRecord.builder().resource(resource).scope(scope).traceId(traceId).spanId(Bytes.wrap(spanId))
                .parentSpanId(parent).flags(1).name(name).kind(2).startTimeUnixNano(start)
                .endTimeUnixNano(start + duration)
                .attributes(List.of(KeyValue.of("http.response.status_code", status == 2 ? 500 : 200),
                        new KeyValue("retry", AnyValue.of(random.nextBoolean()))))
                .statusCode(status).statusMessage(message).build();
    }

    private LogRecord log(SpanRecord span, long time, int severity, String body) {
        return LogRecord.builder().resource(span.resource()).scope(scope).timeUnixNano(time)
                .observedTimeUnixNano(time).severityNumber(severity).body(AnyValue.of(body))
                .attributes(List.of(KeyValue.of("log.source", "app"))).flags(1).traceId(span.traceId())
                .spanId(span.spanId()).build();
    }
}
