package dev.needle.query.loki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Drain on lines chosen for each rule: the tokens, the tree's wildcard branches, the similarity threshold. */
class DrainTest {

    private static List<String> patterns(Drain drain) {
        return drain.clusters().stream().map(Drain.Cluster::pattern).toList();
    }

    @Test
    void tokenize_atSpacesEqualsAndPunctuation_keepingWordCharacters() {
        List<Integer> spaces = new ArrayList<>();
        assertEquals(List.of("msg", "=", "\"", "a", "b", "\"", "at", "10.0.0.1:80/x_y-z", ","),
                Drain.tokenize("msg=\"a b\"  at 10.0.0.1:80/x_y-z,", spaces));
        // A space is remembered after the token before it, twice for two spaces.
        assertEquals(List.of(3, 5, 5, 6), spaces);
    }

    @Test
    void digits_takeTheWildcardBranch_soLinesThatDifferThereMeet() {
        Drain drain = new Drain();
        Drain.Cluster first = drain.train("connected to db-1 in 12 ms", 1);
        assertSame(first, drain.train("connected to db-2 in 7 ms", 2));
        assertEquals(List.of("connected to <_> in <_> ms"), patterns(drain));
        assertEquals(List.of(1L, 2L), first.times());
    }

    @Test
    void logfmtLine_valuesThatVaryBecomeWildcards_quotesAndSpacesKept() {
        Drain drain = new Drain();
        drain.train("level=info msg=\"order placed\" order_id=1001 duration=15ms", 1);
        drain.train("level=info msg=\"order placed\" order_id=1002 duration=22ms", 2);
        assertEquals(List.of("level=info msg=\"order placed\" order_id=<_> duration=<_>"), patterns(drain));
    }

    @Test
    void belowTheSimilarityThreshold_aClusterOfItsOwn() {
        Drain drain = new Drain();
        drain.train("a1 b2 c3 d4 e5 f6 gg", 1);
        // Every token differs from the first cluster's: similarity 0, under 0.3.
        drain.train("a7 b8 c9 d0 e1 f2 hh", 2);
        assertEquals(List.of("a1 b2 c3 d4 e5 f6 gg", "a7 b8 c9 d0 e1 f2 hh"), patterns(drain));
        // Six of seven tokens equal the first cluster's: it takes the line.
        drain.train("a1 b2 c3 d4 e5 f6 hh", 3);
        assertEquals(List.of("a7 b8 c9 d0 e1 f2 hh", "a1 b2 c3 d4 e5 f6 <_>"), patterns(drain));
    }

    @Test
    void aRunOfWildcards_isWrittenAsOne() {
        Drain drain = new Drain();
        drain.train("x y z 12(", 1);
        drain.train("x y z 34)", 2);
        assertEquals(List.of("x y z <_>"), patterns(drain));
    }

    @Test
    void tooFewTokensOrTooLong_notLearnt() {
        Drain drain = new Drain();
        assertNull(drain.train("ok done now", 1));
        assertNull(drain.train("x".repeat(3001), 2));
        assertEquals(List.of(), patterns(drain));
    }
}
