package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A compaction's output whose meta.json is damaged never makes a record answered twice: real blocks are
 * compacted, the outputs' meta.json damaged on disk, and every query through the engine (trace lookups with
 * their logs, searches of every span and every log) answers the records of before exactly, or is partial
 * with no record twice and its problems naming the compaction's blocks. So from the index the compactor
 * left (which holds a sound copy of meta.json), from a listing, from an index built again from the damaged
 * blocks, and after a later compaction pass, which must neither delete what it cannot be sure is replaced
 * nor merge it a second time. Each case runs in about a second.
 */
class CompactionDamageTest {

    private static final TenantId TENANT = TenantId.of("acme");
    /** With the index, and from a listing. */
    private static final List<Mechanisms> MECHANISMS = List.of(Mechanisms.ALL,
            new Mechanisms(true, true, true, true, false));
    private static final Pattern REPLACES = Pattern.compile("(,\\s*)?\"replaces\"\\s*:\\s*\\[([^]]*)]");

    /** What is done to each compaction output. */
    enum Damage {
        /** meta.json cut to half its bytes. */
        META_TRUNCATED,
        /** meta.json overwritten with as many random bytes. */
        META_GARBAGE,
        /** meta.json still valid JSON, its replaces list less its first name. */
        META_LIST_CUT,
        /** meta.json still valid JSON, without its replaces list. */
        META_LIST_REMOVED,
        /** meta.json garbage, and data.arrow cut to half its bytes. */
        META_AND_DATA
    }

    @TempDir
    Path dir;

    /** Records as text, sorted: a record answered twice appears twice. */
    private record Answer(String query, List<String> records, List<String> problems) {
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void damagedOutputMeta_everyAnswerExactOrPartialNamingTheBlocks(Damage damage) throws Exception {
        try (RootAllocator allocator = new RootAllocator()) {
            FsBlockStore store = new FsBlockStore(dir.resolve("data"));
            Corpus corpus = Corpus.write(store, allocator, TENANT, 23, 6, 100);
            Corpus.writeIndex(store, TENANT);
            List<Bytes> ids = new ArrayList<>();
            SplittableRandom random = new SplittableRandom(9);
            for (int i = 0; i < 6; i++) {
                ids.add(corpus.traceIds.get(random.nextInt(corpus.traceIds.size())));
            }
            ids.add(corpus.absentTraceId());
            List<Answer> before;
            try (QueryEngine engine = engine(store)) {
                before = answers(engine, ids);
            }
            before.forEach(a -> assertTrue(a.problems().isEmpty(), a.toString()));

            List<BlockName> compaction = new ArrayList<>();
            List<BlockRef> outputs = new ArrayList<>();
            List<BlockRef> inputs = new ArrayList<>();
            try (Compactor compactor = compactor(store, Duration.ofHours(1))) {
                for (Compactor.Merge m : compactor.run(false).merges()) {
                    outputs.add(new BlockRef(m.tenant(), m.signal(), m.output()));
                    compaction.add(m.output());
                    compaction.addAll(m.inputs());
                    m.inputs().forEach(name -> inputs.add(new BlockRef(m.tenant(), m.signal(), name)));
                }
            }
            assertTrue(outputs.stream().anyMatch(o -> o.signal() == Signal.LOGS), "logs merged: " + outputs);
            for (BlockRef output : outputs) {
                damage(store, output, damage);
            }
            check(store, before, ids, compaction, damage, "the index as the compaction left it, and a listing");

            for (Signal signal : Signal.values()) {
                Files.deleteIfExists(store.root().resolve(TENANT.value()).resolve(signal.dirName())
                        .resolve(BlockStore.INDEX_OBJECT));
            }
            Corpus.writeIndex(store, TENANT);
            check(store, before, ids, compaction, damage, "an index built again from the damaged blocks");

            // A later pass with no grace, twice: what it may finish is deleted by the second.
            try (Compactor later = compactor(store, Duration.ZERO)) {
                for (int pass = 0; pass < 2; pass++) {
                    for (Compactor.Merge m : later.run(false).merges()) {
                        compaction.add(m.output());
                    }
                }
            }
            for (BlockRef input : inputs) {
                assertTrue(store.list(TENANT, input.signal()).contains(input),
                        "kept while what replaces it is in doubt: " + input);
            }
            check(store, before, ids, compaction, damage, "after a later compaction pass");
        }
    }

    private static Compactor compactor(BlockStore store, Duration grace) {
        return new Compactor(store, new Compactor.Options(400, BlockWriter.Options.DEFAULT.withBatchRows(64), grace, "",
                b -> true));
    }

    private static QueryEngine engine(BlockStore store) {
        return new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2, QueryLimits.DEFAULTS, Duration.ZERO, Duration.ZERO);
    }

    /**
     * Every answer of a fresh engine is the one of before, or partial: no record more often than before,
     * and each problem naming a block of the compaction. Where data.arrow is sound and meta.json cannot be
     * read at all, the answer is exact: data.arrow's footer says what the block replaces.
     */
    private static void check(BlockStore store, List<Answer> before, List<Bytes> ids, List<BlockName> compaction,
                              Damage damage, String when) throws Exception {
        List<Answer> now;
        try (QueryEngine engine = engine(store)) {
            now = answers(engine, ids);
        }
        assertEquals(before.size(), now.size());
        for (int i = 0; i < before.size(); i++) {
            Answer expected = before.get(i);
            Answer actual = now.get(i);
            String what = damage + ", " + when + ": " + actual.query();
            Map<String, Integer> left = new HashMap<>();
            expected.records().forEach(r -> left.merge(r, 1, Integer::sum));
            for (String r : actual.records()) {
                assertTrue(left.merge(r, -1, Integer::sum) >= 0, what + " answers a record more often than it is stored: " + r);
            }
            if (actual.problems().isEmpty()) {
                assertEquals(expected.records(), actual.records(), what + " is neither exact nor partial");
            } else {
                assertFalse(damage == Damage.META_TRUNCATED || damage == Damage.META_GARBAGE,
                        what + " is partial, though data.arrow names what the block replaces: " + actual.problems());
                for (String problem : actual.problems()) {
                    assertTrue(compaction.stream().anyMatch(b -> problem.contains(b.toString())),
                            what + ": a problem names no block of the compaction: " + problem);
                }
            }
        }
    }

    private static void damage(BlockStore store, BlockRef block, Damage damage) throws IOException {
        Path blockDir = ((FsBlockStore) store).blockDir(block);
        Path meta = blockDir.resolve(BlockLayout.META);
        byte[] bytes = Files.readAllBytes(meta);
        switch (damage) {
            case META_TRUNCATED -> Files.write(meta, Arrays.copyOf(bytes, bytes.length / 2));
            case META_GARBAGE, META_AND_DATA -> {
                byte[] garbage = new byte[bytes.length];
                new SplittableRandom(bytes.length).nextBytes(garbage);
                Files.write(meta, garbage);
                if (damage == Damage.META_AND_DATA) {
                    Path data = blockDir.resolve(BlockLayout.DATA);
                    byte[] arrow = Files.readAllBytes(data);
                    Files.write(data, Arrays.copyOf(arrow, arrow.length / 2));
                }
            }
            case META_LIST_CUT, META_LIST_REMOVED -> {
                String json = new String(bytes, StandardCharsets.UTF_8);
                Matcher m = REPLACES.matcher(json);
                assertTrue(m.find(), json);
                String edited = damage == Damage.META_LIST_REMOVED ? ""
                        : m.group(0).replaceFirst("\"[^\"]*\"\\s*,?\\s*", "");
                Files.writeString(meta, json.substring(0, m.start()) + edited + json.substring(m.end()));
            }
        }
    }

    /** Each id's trace with its logs, and searches of every span and every log, each way of learning the blocks. */
    private static List<Answer> answers(QueryEngine engine, List<Bytes> ids) throws Exception {
        List<Answer> answers = new ArrayList<>();
        Expr everySpan = QueryParser.parse("{ resource.service.name != \"nowhere\" }", Signal.SPANS);
        for (Mechanisms m : MECHANISMS) {
            for (Bytes id : ids) {
                TraceResult trace = engine.trace(TENANT, id, TimeRange.ALL, m, true);
                answers.add(new Answer("trace " + id.hex() + " " + m, CompactionQueryTest.text(trace.spans(), trace.logs()), trace.problems()));
            }
            SearchResult<SpanRecord> spans = engine.searchSpans(TENANT, everySpan, TimeRange.ALL, 100_000, m);
            answers.add(new Answer("every span " + m, CompactionQueryTest.text(spans.records(), List.of()), spans.problems()));
            SearchResult<LogRecord> logs = engine.searchLogs(TENANT, new Expr.MatchAll(), TimeRange.ALL, 100_000, m);
            answers.add(new Answer("every log " + m, CompactionQueryTest.text(List.of(), logs.records()), logs.problems()));
        }
        return answers;
    }

}
