package dev.needle.query.loki;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Drain, the log-template miner Loki's pattern ingester runs ({@code pkg/pattern/drain}; He et al., "Drain: An
 * Online Log Parsing Approach with Fixed Depth Tree", ICWS 2017), with Loki's settings.
 *
 * <p>A line is cut into tokens at spaces, {@code =} and punctuation (a token keeps letters, digits and
 * {@code _ - . : /}; each punctuation mark is a token of its own, spaces are remembered to write the pattern
 * back). Lines of fewer than 4 or more than 80 tokens, or longer than 3,000 bytes, are not learnt. A line is
 * looked up in a tree: first by its number of tokens, then by its leading tokens one level each (at most 28,
 * and never its last one), where a token holding a digit always takes the wildcard branch and a level holds at
 * most 15 branches before the rest share the wildcard. Among the clusters at the leaf, the one whose tokens
 * equal the line's at the largest share of positions (ties: the one with more wildcards) takes the line if that
 * share is at least 0.3; its tokens that differ become the wildcard {@code <_>}. Otherwise the line starts a
 * cluster of its own. At most 300 clusters are kept, the least recently matched dropped first.
 *
 * <p>A cluster's pattern is its tokens written back with the first line's spaces, a run of wildcards written as
 * one ({@code <_>}). Not done here: Loki's separate tokenizers for logfmt and JSON lines and its rate limit on
 * new clusters; every line is cut by punctuation.
 */
final class Drain {

    /** The wildcard that stands for a token that varies. */
    static final String WILDCARD = "<_>";
    private static final int MAX_DEPTH = 30 - 2;
    private static final double SIMILARITY = 0.3;
    private static final int MAX_CHILDREN = 15;
    private static final int MAX_CLUSTERS = 300;
    private static final int MAX_LINE_BYTES = 3000;
    private static final int MAX_TOKENS = 127;
    private static final int MIN_LEARNT_TOKENS = 4;
    private static final int MAX_LEARNT_TOKENS = 80;

    /** A template learnt from lines and the lines it took. */
    static final class Cluster {
        private final int id;
        private final String[] tokens;
        private final int[] spacesAfter;
        private final List<Long> times = new ArrayList<>();

        private Cluster(int id, String[] tokens, int[] spacesAfter) {
            this.id = id;
            this.tokens = tokens;
            this.spacesAfter = spacesAfter;
        }

        /** The template as Loki writes it: tokens with the first line's spaces, a run of wildcards as one. */
        String pattern() {
            StringBuilder out = new StringBuilder();
            int space = 0;
            for (int i = 0; i < tokens.length; i++) {
                out.append(tokens[i]);
                while (space < spacesAfter.length && spacesAfter[space] == i) {
                    out.append(' ');
                    space++;
                }
            }
            return out.toString().replaceAll("(" + WILDCARD + ")+", WILDCARD);
        }

        /** The times (Unix nanoseconds) of the lines it took, in the order learnt. */
        List<Long> times() {
            return times;
        }
    }

    /** A node of the prefix tree: branches by token, and at a leaf the clusters that end there. */
    private static final class Node {
        final Map<String, Node> children = new LinkedHashMap<>();
        final List<Integer> clusters = new ArrayList<>();
    }

    private final Node root = new Node();
    private final Map<Integer, Cluster> clusters = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Cluster> eldest) {
            return size() > MAX_CLUSTERS;
        }
    };
    private int lastId;

    /** The clusters learnt, least recently matched first. */
    Collection<Cluster> clusters() {
        return clusters.values();
    }

    /** Learns {@code line}, seen at {@code timeNanos}; the cluster that took it, or null when it is not learnt. */
    Cluster train(String line, long timeNanos) {
        if (line.getBytes(StandardCharsets.UTF_8).length > MAX_LINE_BYTES) {
            return null;
        }
        List<Integer> spaces = new ArrayList<>();
        List<String> tokens = tokenize(line, spaces);
        if (tokens.size() < MIN_LEARNT_TOKENS || tokens.size() > MAX_LEARNT_TOKENS) {
            return null;
        }
        String[] seq = tokens.toArray(String[]::new);
        Cluster match = search(seq);
        if (match == null) {
            match = new Cluster(++lastId, seq, spaces.stream().mapToInt(Integer::intValue).toArray());
            clusters.put(match.id, match);
            add(match);
        } else {
            // The lookup makes the match the most recently used cluster, the last to be dropped.
            clusters.get(match.id);
            for (int i = 0; i < seq.length; i++) {
                if (!seq[i].equals(match.tokens[i])) {
                    match.tokens[i] = WILDCARD;
                }
            }
        }
        match.times.add(timeNanos);
        return match;
    }

    /**
     * The tokens of a line, as Loki's punctuation tokenizer cuts it; {@code spacesAfter} gets, for each space,
     * the index of the token before it.
     */
    static List<String> tokenize(String line, List<Integer> spacesAfter) {
        List<String> tokens = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < line.length(); ) {
            int c = line.codePointAt(i);
            int next = i + Character.charCount(c);
            if (tokens.size() >= MAX_TOKENS) {
                break;
            }
            boolean kept = Character.isLetter(c) || isNumber(c) || c == '_' || c == '-' || c == '.' || c == ':'
                    || c == '/';
            if (!kept && (c == ' ' || c == '=' || isPunctuation(c))) {
                if (i > start) {
                    tokens.add(line.substring(start, i));
                }
                if (c == ' ') {
                    spacesAfter.add(tokens.size() - 1);
                } else {
                    tokens.add(line.substring(i, next));
                }
                start = next;
            }
            i = next;
        }
        if (start < line.length()) {
            tokens.add(line.substring(start));
        }
        return tokens;
    }

    /** The cluster that takes {@code tokens}, or null. */
    private Cluster search(String[] tokens) {
        Node node = root.children.get(Integer.toString(tokens.length));
        if (node == null) {
            return null;
        }
        int depth = 1;
        for (String token : tokens) {
            if (depth >= MAX_DEPTH || depth == tokens.length) {
                break;
            }
            Node next = node.children.get(token);
            node = next != null ? next : node.children.get(WILDCARD);
            if (node == null) {
                return null;
            }
            depth++;
        }
        Cluster best = null;
        double bestSimilarity = -1;
        int bestWildcards = -1;
        for (int id : node.clusters) {
            Cluster c = clusters.get(id);
            if (c == null) {
                continue;
            }
            int same = 0;
            int wildcards = 0;
            for (int i = 0; i < tokens.length; i++) {
                if (c.tokens[i].equals(WILDCARD)) {
                    wildcards++;
                } else if (c.tokens[i].equals(tokens[i])) {
                    same++;
                }
            }
            double similarity = (double) same / tokens.length;
            if (similarity > bestSimilarity || similarity == bestSimilarity && wildcards > bestWildcards) {
                best = c;
                bestSimilarity = similarity;
                bestWildcards = wildcards;
            }
        }
        return bestSimilarity >= SIMILARITY ? best : null;
    }

    /** Puts a new cluster at its leaf, making the branches that lead there. */
    private void add(Cluster cluster) {
        Node node = root.children.computeIfAbsent(Integer.toString(cluster.tokens.length), n -> new Node());
        int depth = 1;
        for (String token : cluster.tokens) {
            if (depth >= MAX_DEPTH || depth >= cluster.tokens.length) {
                node.clusters.removeIf(id -> !clusters.containsKey(id));
                node.clusters.add(cluster.id);
                return;
            }
            Node next = node.children.get(token);
            if (next == null) {
                Node wildcard = node.children.get(WILDCARD);
                if (hasDigit(token)) {
                    next = wildcard != null ? wildcard : branch(node, WILDCARD);
                } else if (wildcard != null) {
                    next = node.children.size() < MAX_CHILDREN ? branch(node, token) : wildcard;
                } else {
                    next = branch(node, node.children.size() + 1 < MAX_CHILDREN ? token : WILDCARD);
                }
            }
            node = next;
            depth++;
        }
    }

    private static Node branch(Node node, String token) {
        Node child = new Node();
        node.children.put(token, child);
        return child;
    }

    private static boolean hasDigit(String token) {
        return token.codePoints().anyMatch(Drain::isNumber);
    }

    /** Go's {@code unicode.IsNumber}: Unicode's category N. */
    private static boolean isNumber(int c) {
        int type = Character.getType(c);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
                || type == Character.OTHER_NUMBER;
    }

    /** Go's {@code unicode.IsPunct}: Unicode's category P. */
    private static boolean isPunctuation(int c) {
        int type = Character.getType(c);
        return type == Character.CONNECTOR_PUNCTUATION || type == Character.DASH_PUNCTUATION
                || type == Character.START_PUNCTUATION || type == Character.END_PUNCTUATION
                || type == Character.INITIAL_QUOTE_PUNCTUATION || type == Character.FINAL_QUOTE_PUNCTUATION
                || type == Character.OTHER_PUNCTUATION;
    }
}
