package dev.needle.corpus;

import dev.needle.blocks.model.KeyValue;
import java.util.List;

/**
 * What one signal's records hold, counted while they are made: records per attribute value, per
 * resource and per probed trace. A chunk's tally is merged into the corpus's; the manifest is
 * written from the totals, and a full scan of the output must find the same numbers.
 */
public final class Tally {

    final long[][] attributes;
    final long[] resources;
    final long[] logsPerProbe;
    long records;
    long errors;
    long correlated;
    long events;
    long links;

    Tally(Vocabulary vocabulary, boolean spans, int resources, int probes) {
        var list = spans ? vocabulary.span() : vocabulary.log();
        this.attributes = new long[list.size()][];
        for (ProbedAttribute a : list) {
            attributes[a.slot] = new long[a.size];
        }
        this.resources = new long[resources];
        this.logsPerProbe = new long[probes];
    }

    /** Adds value {@code i} of {@code a} to a record's attributes, and counts it. */
    void add(List<KeyValue> to, ProbedAttribute a, int i) {
        to.add(a.kv(i));
        attributes[a.slot][i]++;
    }

    /** Adds {@code other}'s counts to these. */
    public synchronized void merge(Tally other) {
        for (int s = 0; s < attributes.length; s++) {
            add(attributes[s], other.attributes[s]);
        }
        add(resources, other.resources);
        add(logsPerProbe, other.logsPerProbe);
        records += other.records;
        errors += other.errors;
        correlated += other.correlated;
        events += other.events;
        links += other.links;
    }

    /** Records counted. */
    public synchronized long records() {
        return records;
    }

    private static void add(long[] into, long[] from) {
        for (int i = 0; i < into.length; i++) {
            into[i] += from[i];
        }
    }
}
