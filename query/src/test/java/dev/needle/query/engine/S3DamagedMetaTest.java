package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Damaged meta.json in a bucket: every block's meta.json uploaded again with each batch's
 * {@code maxTraceId} and {@code maxDurationNano} made a little smaller (still valid JSON, and the lie
 * a zone map must not be believed in: the batch's own last trace and slowest span would look absent).
 * Every trace and a duration search answer as the same corpus on a local disk does.
 */
class S3DamagedMetaTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long SEED = 47;
    private static final Pattern MAX = Pattern.compile("\"(maxTraceId\": \"[0-9a-f]*|maxDurationNano\": \\d*)([1-9a-f])");

    @TempDir
    Path dir;
    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();

    @Test
    void metaJsonSmallerMaximaInEveryBlock_answersAsTheUndamagedLocalStore() throws Exception {
        try (RootAllocator allocator = new RootAllocator();
             S3BlockStore s3 = new S3BlockStore(server.client(), server.createBucket("damaged-meta"), "p",
                     dir.resolve("staging"), Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE);
             S3Client raw = server.client()) {
            FsBlockStore local = new FsBlockStore(dir.resolve("local"));
            Corpus corpus = Corpus.write(local, allocator, TENANT, SEED, 2, 80);
            Corpus.write(s3, allocator, TENANT, SEED, 2, 80);
            int damaged = 0;
            for (Signal signal : Signal.values()) {
                for (BlockRef ref : s3.list(TENANT, signal)) {
                    String key = "p/" + ref + "/" + BlockLayout.META;
                    String meta = raw.getObjectAsBytes(b -> b.bucket("damaged-meta").key(key)).asUtf8String();
                    raw.putObject(b -> b.bucket("damaged-meta").key(key),
                            RequestBody.fromBytes(smallerMaxima(meta).getBytes(StandardCharsets.UTF_8)));
                    damaged++;
                }
            }
            assertTrue(damaged >= 4, damaged + " blocks");

            Expr slow = QueryParser.parse("{ duration > 5ms }", Signal.SPANS);
            try (QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 2);
                 QueryEngine onS3 = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 2)) {
                for (Bytes id : corpus.traceIds) {
                    TraceResult expected = onDisk.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
                    TraceResult actual = onS3.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
                    assertTrue(actual.partial() || new HashSet<>(actual.spans()).equals(new HashSet<>(expected.spans()))
                            && new HashSet<>(actual.logs()).equals(new HashSet<>(expected.logs())),
                            "trace " + id + " is short and not marked partial");
                    assertEquals(List.of(), actual.problems(), "data.arrow is intact: trace " + id + " is whole");
                }
                for (int limit : new int[] {10, Integer.MAX_VALUE}) {
                    SearchResult<?> expected = onDisk.searchSpans(TENANT, slow, TimeRange.ALL, limit, Mechanisms.ALL);
                    SearchResult<?> actual = onS3.searchSpans(TENANT, slow, TimeRange.ALL, limit, Mechanisms.ALL);
                    assertEquals(List.of(), actual.problems());
                    assertEquals(new HashSet<>(expected.records()), new HashSet<>(actual.records()), "limit " + limit);
                }
            }
        }
    }

    /** {@code meta} with the last digit of every batch's maxTraceId and maxDurationNano one smaller where it can be. */
    private static String smallerMaxima(String meta) {
        StringBuilder out = new StringBuilder();
        Matcher m = MAX.matcher(meta);
        while (m.find()) {
            char last = m.group(2).charAt(0);
            char smaller = last == 'a' ? '9' : (char) (last - 1);
            m.appendReplacement(out, Matcher.quoteReplacement("\"" + m.group(1) + smaller));
        }
        m.appendTail(out);
        String damaged = out.toString();
        assertTrue(!damaged.equals(meta), "a maximum was made smaller");
        return damaged;
    }
}
