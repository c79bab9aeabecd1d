package dev.needle.corpus;

import dev.needle.blocks.model.Bytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The corpus's traces before any span is made: how many spans each has, which chunk (block) holds
 * it, and the facts about trace {@code t} that other records need — its start, family, id, root
 * service and span ids — each a pure function of the seed and {@code t}, so that a log record can
 * point at a span it never saw generated.
 */
final class TracePlan {

    /** The most spans of one trace. */
    static final int MAX_SPANS = 300;

    private final CorpusSpec spec;
    /** The number of trace 0 in the whole corpus: traces of a run appended to others are numbered after theirs. */
    private final int firstNumber;
    private final int[] sizes;
    /** Chunk {@code c} holds traces {@code chunkStart[c] .. chunkStart[c + 1] - 1}. */
    private final int[] chunkStart;
    private final long[] chunkSpans;
    private final double nanosPerTrace;

    TracePlan(CorpusSpec spec, int firstNumber) {
        this.spec = spec;
        this.firstNumber = firstNumber;
        SplittableRandom random = new SplittableRandom(Seeds.of(spec.seed(), Seeds.TRACE_SIZES, 0));
        int[] sizes = new int[1024];
        int traces = 0;
        long spans = 0;
        while (spans < spec.spans()) {
            int size = (int) Math.min(drawSize(random), spec.spans() - spans);
            if (traces == sizes.length) {
                sizes = Arrays.copyOf(sizes, traces * 2);
            }
            sizes[traces++] = size;
            spans += size;
        }
        this.sizes = Arrays.copyOf(sizes, traces);
        List<Integer> starts = new ArrayList<>();
        List<Long> chunkSpans = new ArrayList<>();
        long inChunk = 0;
        for (int t = 0; t < traces; t++) {
            if (t == 0 || inChunk + this.sizes[t] > spec.blockRows()) {
                if (t > 0) {
                    chunkSpans.add(inChunk);
                }
                starts.add(t);
                inChunk = 0;
            }
            inChunk += this.sizes[t];
        }
        if (traces > 0) {
            chunkSpans.add(inChunk);
        }
        starts.add(traces);
        this.chunkStart = starts.stream().mapToInt(Integer::intValue).toArray();
        this.chunkSpans = chunkSpans.stream().mapToLong(Long::longValue).toArray();
        this.nanosPerTrace = traces == 0 ? 0 : (double) spec.windowNanos() / traces;
        if ((long) firstNumber + traces > 1L << 31) {
            throw new IllegalArgumentException("a corpus holds fewer than 2^31 traces; this one would reach "
                    + ((long) firstNumber + traces));
        }
    }

    /** Spans per trace: log-normal around 8 (a few single-span traces, a long tail to {@value #MAX_SPANS}). */
    private static long drawSize(SplittableRandom random) {
        long size = Math.round(Math.exp(Math.log(8) + 1.1 * random.nextGaussian()));
        return Math.max(1, Math.min(MAX_SPANS, size));
    }

    int traces() {
        return sizes.length;
    }

    /**
     * Trace {@code t}'s number in the whole corpus, which its id, span ids and random choices derive from:
     * so traces of runs appended to each other never share them.
     */
    int number(int t) {
        return firstNumber + t;
    }

    int size(int t) {
        return sizes[t];
    }

    int chunks() {
        return chunkSpans.length;
    }

    int firstTrace(int chunk) {
        return chunkStart[chunk];
    }

    int endTrace(int chunk) {
        return chunkStart[chunk + 1];
    }

    long spansIn(int chunk) {
        return chunkSpans[chunk];
    }

    /** When trace {@code t}'s root span starts: traces are spread evenly over the window, with jitter. */
    long startNanos(int t) {
        long jitter = (long) (nanosPerTrace * ((Seeds.mix(Seeds.of(spec.seed(), Seeds.TRACE_ID, number(t))) >>> 11) * 0x1.0p-53));
        return spec.startUnixNano() + (long) (nanosPerTrace * t) + jitter;
    }

    /** Trace {@code t}'s id, family and root service. */
    Identity identity(int t) {
        SplittableRandom random = new SplittableRandom(Seeds.of(spec.seed(), Seeds.TRACE_ID, number(t)));
        List<TraceIdFamily> families = spec.families();
        TraceIdFamily family = families.get(random.nextInt(families.size()));
        int rootService = random.nextInt(spec.services());
        byte[] id = family.present(number(t), startNanos(t) / 1_000_000_000L, random);
        return new Identity(Bytes.wrap(id), family, rootService);
    }

    /** An id of {@code family} that no trace has, made near trace {@code t}. */
    Bytes absentId(TraceIdFamily family, int t, SplittableRandom random) {
        return Bytes.wrap(family.absent(number(t), startNanos(t) / 1_000_000_000L, random));
    }

    /** The id of span {@code k} of trace {@code t}: eight non-zero bytes. */
    Bytes spanId(int t, int k) {
        long v = Seeds.mix(Seeds.of(spec.seed(), Seeds.TRACE, number(t)) + (k + 1) * 0x9e3779b97f4a7c15L);
        if (v == 0) {
            v = 1;
        }
        byte[] id = new byte[8];
        for (int i = 0; i < 8; i++) {
            id[i] = (byte) (v >>> (56 - 8 * i));
        }
        return Bytes.wrap(id);
    }

    /** Who trace {@code t} is: its id, its family and the service its root span belongs to. */
    record Identity(Bytes traceId, TraceIdFamily family, int rootService) {
    }
}
