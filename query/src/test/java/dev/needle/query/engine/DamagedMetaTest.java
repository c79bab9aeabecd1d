package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.DamagedBlocks;
import dev.needle.blocks.cli.InspectCommand;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Damaged meta.json, end to end, as a failing disk damages it: for every field of meta.json, in every
 * block at once, a digit changed into another (valid JSON that says something else: {@code 0} into
 * {@code 1} in a zone map) and a character changed into one that is not JSON; then every trace asked by
 * id (with its logs), and searches with a time window, a duration condition and a limit. Each answer is
 * exactly the undamaged one or marked partial, never silently short (and since data.arrow is intact,
 * every one is in fact whole). The same for the copies of meta.json the store's index holds, and for
 * TAGS; and {@code inspect store --verify} lists every damage made.
 */
class DamagedMetaTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    /** A value in meta.json: a field, then an integer, a hex string or an array of integers. */
    private static final Pattern VALUE = Pattern.compile("\"(\\w+)\": (-?\\d+|\"[0-9a-f]+\"|\\[[-0-9, ]+\\])");

    @TempDir
    static Path dir;
    private static RootAllocator allocator;
    private static FsBlockStore plain;
    private static FsBlockStore indexed;
    private static Corpus corpus;
    private static List<Query> queries;

    /** One question to the engine and its answer: the records found, and whether it says it is partial. */
    private record Query(String name, Asking asking) {
    }

    private record Answer(Object records, boolean partial) {
    }

    @FunctionalInterface
    private interface Asking {
        Answer ask(QueryEngine engine) throws IOException;
    }

    @BeforeAll
    static void writeCorpus() throws Exception {
        allocator = new RootAllocator();
        plain = new FsBlockStore(dir.resolve("plain"));
        corpus = Corpus.write(plain, allocator, TENANT, 71, 3, 100);
        indexed = new FsBlockStore(dir.resolve("indexed"));
        Corpus.write(indexed, allocator, TENANT, 71, 3, 100);
        Corpus.writeIndex(indexed, TENANT);
        queries = queries();
    }

    @AfterAll
    static void closeAllocator() {
        allocator.close();
    }

    private static List<Query> queries() throws QueryParseException {
        List<Query> all = new ArrayList<>();
        for (Bytes id : new TreeSet<>(corpus.traceIds)) {
            all.add(new Query("trace " + id.hex(), engine -> {
                TraceResult r = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
                return new Answer(List.of(new HashSet<>(r.spans()), new HashSet<>(r.logs())), r.partial());
            }));
        }
        TimeRange window = new TimeRange(Corpus.T0 + Corpus.BLOCK_NANOS * 3 / 2, Corpus.T0 + Corpus.BLOCK_NANOS * 16 / 5);
        Expr everything = QueryParser.parse("{ }", Signal.SPANS);
        Expr slow = QueryParser.parse("{ duration > 5ms }", Signal.SPANS);
        Expr severe = QueryParser.parse("{ severity >= 17 }", Signal.LOGS);
        all.add(spans("spans in a window, limit 20", everything, window, 20));
        all.add(spans("duration > 5ms", slow, TimeRange.ALL, Integer.MAX_VALUE));
        all.add(spans("duration > 5ms in a window, limit 10", slow, window, 10));
        all.add(new Query("logs severity >= 17 in a window, limit 20", engine -> {
            SearchResult<?> r = engine.searchLogs(TENANT, severe, window, 20, Mechanisms.ALL);
            return new Answer(new HashSet<>(r.records()), r.partial());
        }));
        return all;
    }

    private static Query spans(String name, Expr expr, TimeRange range, int limit) {
        return new Query(name, engine -> {
            SearchResult<?> r = engine.searchSpans(TENANT, expr, range, limit, Mechanisms.ALL);
            return new Answer(new HashSet<>(r.records()), r.partial());
        });
    }

    /** A change of one value's text in meta.json: a digit into another, or a character into one that is not JSON. */
    private enum Kind {
        /** The JSON stays valid and says another number or trace id. */
        VALID,
        /** Bit 6 flipped: a digit or hex letter becomes a character that is neither a number nor a trace id. */
        INVALID
    }

    /** One change to make to a meta.json: a field, and how. */
    private record Damage(String field, Kind kind) {
    }

    @Test
    void metaJsonDamagedInEveryField_answersAreWholeOrPartialNeverShort_andInspectFindsIt() throws IOException {
        Map<Path, byte[]> originals = metaFiles(plain);
        List<Path> files = List.copyOf(originals.keySet());
        Map<String, Answer> undamaged = askAll(plain);
        List<List<Damage>> rounds = rounds(List.copyOf(originals.values()));
        try {
            for (int r = 0; r < rounds.size(); r++) {
                SplittableRandom random = new SplittableRandom(r);
                List<String> damaged = new ArrayList<>();
                for (int b = 0; b < files.size(); b++) {
                    Damage d = rounds.get(r).get(b);
                    if (d != null) {
                        Files.write(files.get(b), damage(originals.get(files.get(b)), d, random));
                        damaged.add(blockOf(plain, files.get(b)) + "\",\"file\":\"meta.json\"");
                    }
                }
                String round = "round " + r + " " + rounds.get(r);
                assertAnswers(undamaged, plain, round);
                assertInspectFinds(plain, damaged, round);
                originals.forEach(DamagedMetaTest::write);
            }
        } finally {
            originals.forEach(DamagedMetaTest::write);
        }
    }

    @Test
    void indexCopiesOfMetaJsonDamagedInEveryField_answersAreWholeOrPartialNeverShort_andInspectFindsIt()
            throws IOException {
        Map<String, Answer> undamaged = askAll(indexed);
        Map<Signal, IndexObject> originals = new LinkedHashMap<>();
        List<BlockRef> blocks = new ArrayList<>();
        List<BlockIndex.Entry> entries = new ArrayList<>();
        for (Signal signal : Signal.values()) {
            IndexObject index = indexed.readIndex(TENANT, signal, null).orElseThrow();
            originals.put(signal, index);
            for (BlockIndex.Entry e : BlockIndex.decode(index.bytes(), TENANT, signal).entries()) {
                blocks.add(new BlockRef(TENANT, signal, e.name()));
                entries.add(e);
            }
        }
        List<List<Damage>> rounds = rounds(entries.stream().map(BlockIndex.Entry::meta).toList());
        try {
            damageEachRound(rounds, blocks, entries, undamaged);
        } finally {
            originals.forEach((signal, index) -> replaceIndex(signal, index.bytes()));
        }
    }

    /** Writes each round's index, its copies of meta.json damaged as the round says, and asks everything. */
    private static void damageEachRound(List<List<Damage>> rounds, List<BlockRef> blocks, List<BlockIndex.Entry> entries,
                                        Map<String, Answer> undamaged) throws IOException {
        for (int r = 0; r < rounds.size(); r++) {
            SplittableRandom random = new SplittableRandom(r);
            List<String> damaged = new ArrayList<>();
            Map<Signal, List<BlockIndex.Entry>> copies = new LinkedHashMap<>();
            for (int b = 0; b < blocks.size(); b++) {
                BlockIndex.Entry e = entries.get(b);
                Damage d = rounds.get(r).get(b);
                byte[] meta = e.meta();
                if (d != null) {
                    meta = damage(meta, d, random);
                    damaged.add(blocks.get(b) + "\",\"file\":\"INDEX\"");
                }
                copies.computeIfAbsent(blocks.get(b).signal(), s -> new ArrayList<>())
                        .add(new BlockIndex.Entry(e.name(), meta, e.traceIdx(), e.attrIdx(), e.dataFooter()));
            }
            copies.forEach((signal, changed) -> replaceIndex(signal, BlockIndex.of(TENANT, signal, changed).encode()));
            String round = "index copies, round " + r + " " + rounds.get(r);
            assertAnswers(undamaged, indexed, round);
            assertInspectFinds(indexed, damaged, round);
        }
    }

    /**
     * Which damage each of {@code metas} takes in each round (null: none): every field that holds a number
     * or a trace id, changed both ways, each in a block of its own; a block takes one change a round, so
     * that every block of a round lies about something different.
     */
    private static List<List<Damage>> rounds(List<byte[]> metas) {
        List<Set<String>> fieldsOf = metas.stream().map(m -> Set.copyOf(fields(List.of(m)))).toList();
        Map<Damage, Integer> needed = new LinkedHashMap<>();
        for (String field : fields(metas)) {
            for (Kind kind : Kind.values()) {
                needed.put(new Damage(field, kind), 1);
            }
        }
        List<Set<Damage>> done = metas.stream().map(m -> (Set<Damage>) new HashSet<Damage>()).toList();
        List<List<Damage>> rounds = new ArrayList<>();
        while (true) {
            List<Damage> round = new ArrayList<>();
            for (int b = 0; b < metas.size(); b++) {
                int block = b;
                Damage pick = needed.entrySet().stream()
                        .filter(e -> e.getValue() > 0 && fieldsOf.get(block).contains(e.getKey().field())
                                && !done.get(block).contains(e.getKey()) && !round.contains(e.getKey()))
                        .map(Map.Entry::getKey).findFirst().orElse(null);
                if (pick != null) {
                    needed.merge(pick, -1, Integer::sum);
                    done.get(b).add(pick);
                }
                round.add(pick);
            }
            if (round.stream().allMatch(d -> d == null)) {
                break;
            }
            rounds.add(round);
        }
        needed.forEach((d, left) -> assertEquals(0, left, d + " was never made"));
        assertTrue(needed.size() >= 48, needed.keySet().toString());
        return rounds;
    }

    /**
     * TAGS bit-flipped in its header and at places through its body, in every block at once, and cut short:
     * the keys and values answered are the undamaged ones, or the answer is partial; inspect lists each
     * damaged file.
     */
    @Test
    void tagsDamaged_tagAnswersAreWholeOrPartial_andInspectFindsIt() throws IOException {
        Map<Path, byte[]> originals = new LinkedHashMap<>();
        for (Signal signal : Signal.values()) {
            for (BlockRef ref : plain.list(TENANT, signal)) {
                Path tags = plain.blockDir(ref).resolve(BlockTags.FILE);
                originals.put(tags, Files.readAllBytes(tags));
            }
        }
        Map<Signal, TagsResult> undamaged = tags(plain);
        int longest = originals.values().stream().mapToInt(b -> b.length).max().orElseThrow();
        List<UnaryOperator<byte[]>> damages = new ArrayList<>();
        for (int at = 0; at < longest; at += at < BlockTags.HEADER_BYTES ? 1 : longest / 8) {
            int position = at;
            damages.add(b -> {
                byte[] flipped = b.clone();
                flipped[position % b.length] ^= (byte) (1 << (position / 8 % 8));
                return flipped;
            });
        }
        damages.add(b -> Arrays.copyOf(b, b.length / 2));
        try {
            damageEach(damages, originals, undamaged);
        } finally {
            originals.forEach(DamagedMetaTest::write);
        }
    }

    /** Writes each damage into every TAGS file and asks for the tags. */
    private static void damageEach(List<UnaryOperator<byte[]>> damages, Map<Path, byte[]> originals,
                                   Map<Signal, TagsResult> undamaged) throws IOException {
        for (UnaryOperator<byte[]> damage : damages) {
            List<String> damaged = new ArrayList<>();
            for (Map.Entry<Path, byte[]> tags : originals.entrySet()) {
                Files.write(tags.getKey(), damage.apply(tags.getValue()));
                damaged.add(blockOf(plain, tags.getKey()) + "\",\"file\":\"TAGS\"");
            }
            Map<Signal, TagsResult> answered = tags(plain);
            for (Signal signal : Signal.values()) {
                TagsResult r = answered.get(signal);
                assertTrue(!r.problems().isEmpty() || r.tags().keys().equals(undamaged.get(signal).tags().keys()),
                        signal + " tags after damage " + damaged.size());
                assertEquals(undamaged.get(signal).tags().keys(), r.tags().keys(), "data.arrow is intact");
            }
            assertInspectFinds(plain, damaged, "TAGS");
        }
    }

    private static Map<Signal, TagsResult> tags(BlockStore store) throws IOException {
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2)) {
            return Map.of(Signal.SPANS, engine.spanTags(TENANT, TimeRange.ALL, key -> true, true),
                    Signal.LOGS, engine.logTags(TENANT, TimeRange.ALL, key -> true));
        }
    }

    /**
     * Every answer of a fresh engine over {@code store} is the undamaged one or partial, never short; and
     * with data.arrow intact, reading the block without its zone maps gives the whole answer.
     */
    private static void assertAnswers(Map<String, Answer> undamaged, BlockStore store, String round) throws IOException {
        Map<String, Answer> answers = askAll(store);
        for (Map.Entry<String, Answer> expected : undamaged.entrySet()) {
            Answer answer = answers.get(expected.getKey());
            String what = round + ": " + expected.getKey();
            assertTrue(answer.partial() || answer.records().equals(expected.getValue().records()),
                    what + " is short and not marked partial");
            assertEquals(expected.getValue(), answer, what + " (data.arrow is intact: the answer must be whole)");
        }
    }

    private static Map<String, Answer> askAll(BlockStore store) throws IOException {
        Map<String, Answer> answers = new LinkedHashMap<>();
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2)) {
            for (Query q : queries) {
                answers.put(q.name(), q.asking().ask(engine));
            }
        }
        return answers;
    }

    /** {@code inspect store --verify} exits 1 and lists a damage row for each of {@code rows} (block, then file). */
    private static void assertInspectFinds(FsBlockStore store, List<String> rows, String round) {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new InspectCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(new StringWriter()));
        int exit = cli.execute("store", store.root().toString(), "--verify", "--json");
        String json = out.toString();
        assertEquals(1, exit, round + ": " + json);
        for (String row : rows) {
            assertTrue(json.contains("{\"block\":\"" + row), round + ": inspect does not list " + row + " in " + json);
        }
    }

    /** {@code meta} with one occurrence of the damage's field changed as it says, at a place {@code random} picks. */
    private static byte[] damage(byte[] meta, Damage damage, SplittableRandom random) {
        String field = damage.field();
        Kind kind = damage.kind();
        String text = new String(meta, StandardCharsets.US_ASCII);
        List<Integer> digits = new ArrayList<>();
        Matcher m = VALUE.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(field)) {
                for (int at = m.start(2); at < m.end(2); at++) {
                    if (Character.digit(text.charAt(at), 16) >= 0 && changesValidly(text, at, kind)) {
                        digits.add(at);
                    }
                }
            }
        }
        assertTrue(!digits.isEmpty(), damage + " has no place to be made");
        int at = digits.get(random.nextInt(digits.size()));
        byte[] changed = meta.clone();
        changed[at] = kind == Kind.VALID ? DamagedBlocks.changedDigit(meta[at]) : (byte) (meta[at] ^ 0x40);
        return changed;
    }

    /** Whether the character at {@code at} may change as {@code kind} asks: a number's first digit never becomes a leading 0. */
    private static boolean changesValidly(String text, int at, Kind kind) {
        if (kind == Kind.INVALID) {
            return true;
        }
        char c = text.charAt(at);
        boolean firstOfNumber = !Character.isLetterOrDigit(text.charAt(at - 1)) && text.charAt(at - 1) != '"';
        boolean more = Character.isDigit(text.charAt(at + 1));
        return !(firstOfNumber && more && DamagedBlocks.changedDigit((byte) c) == '0');
    }

    /** The names of the fields of {@code metas} that hold numbers or trace ids. */
    private static List<String> fields(Iterable<byte[]> metas) {
        TreeSet<String> fields = new TreeSet<>();
        for (byte[] meta : metas) {
            Matcher m = VALUE.matcher(new String(meta, StandardCharsets.US_ASCII));
            while (m.find()) {
                fields.add(m.group(1));
            }
        }
        return List.copyOf(fields);
    }

    private static Map<Path, byte[]> metaFiles(FsBlockStore store) throws IOException {
        Map<Path, byte[]> files = new LinkedHashMap<>();
        for (Signal signal : Signal.values()) {
            for (BlockRef ref : store.list(TENANT, signal)) {
                Path meta = store.blockDir(ref).resolve(BlockLayout.META);
                files.put(meta, Files.readAllBytes(meta));
            }
        }
        return files;
    }

    private static String blockOf(FsBlockStore store, Path file) {
        return store.root().relativize(file.getParent()).toString();
    }

    private static void replaceIndex(Signal signal, byte[] bytes) {
        try {
            String token = indexed.readIndex(TENANT, signal, null).orElseThrow().token();
            assertTrue(indexed.writeIndex(TENANT, signal, bytes, token) != null, "the index was replaced");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
