package dev.needle.bench.s3;

import java.util.List;
import java.util.Map;

/**
 * What one {@code needle bench s3} run measured.
 *
 * @param corpus the corpus directory's name
 * @param date   the day of the run, UTC
 * @param facts  the corpus
 * @param only   the settings under which only some probes were asked, and the words of {@code --only} that named them
 * @param asked  the probes asked under each setting run, at every latency and in every cache state run
 * @param runs   one per latency injected
 */
record S3BenchResult(String corpus, String date, CorpusFacts facts, Map<S3Setting, List<String>> only,
                     Map<S3Setting, Integer> asked, List<LatencyRun> runs) {

    /**
     * The corpus as the manifest and the files say.
     *
     * @param spans        spans
     * @param logs         log records
     * @param spanBlocks   blocks of spans
     * @param logBlocks    blocks of logs
     * @param dataBytes    bytes of every data.arrow
     * @param sidecarBytes bytes of every TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX
     * @param probes       probes in the manifest
     */
    record CorpusFacts(long spans, long logs, long spanBlocks, long logBlocks, long dataBytes, long sidecarBytes,
                       int probes) {
    }

    /**
     * What one lookup cost, seen by the client (its latency) and by the proxy in front of the store
     * (every request made for it).
     *
     * @param group           the report's row
     * @param probe           the probe
     * @param setting         the mechanisms allowed
     * @param cold            whether every cache was empty
     * @param millis          from sending the HTTP request to the reply's last byte
     * @param requests        requests to the store (GET, HEAD, LIST)
     * @param dataGets        GETs of data.arrow (its tail included)
     * @param indexGets       GETs of the index object
     * @param lists           listings
     * @param bytes           bytes of the answers' bodies
     * @param sequential      sequential round trips ({@link RequestChain})
     * @param chain           what the requests of the longest chain asked for, in order
     * @param blockRequests   requests for one of a block's files
     * @param explainRequests requests EXPLAIN counted over the blocks
     */
    record LookupCost(String group, String probe, S3Setting setting, boolean cold, double millis, int requests,
                      int dataGets, int indexGets, int lists, long bytes, int sequential, List<String> chain,
                      int blockRequests, long explainRequests) {
    }

    /**
     * The index reads of a query node while it waits and while it answers lookups back to back.
     *
     * @param pollSeconds   the engine's poll interval
     * @param idleSeconds   how long it waited
     * @param idleRequests  requests to the store meanwhile
     * @param busySeconds   how long it answered lookups
     * @param busyLookups   lookups answered
     * @param busyIndexGets GETs of the index meanwhile
     * @param busyLists     listings meanwhile
     */
    record Polls(double pollSeconds, double idleSeconds, int idleRequests, double busySeconds, int busyLookups,
                 int busyIndexGets, int busyLists) {

        /** Index GETs per poll interval while busy. */
        double indexGetsPerPoll() {
            return busyIndexGets / (busySeconds / pollSeconds);
        }

        /** Whether at most one GET of the index was made per poll interval begun. */
        boolean atMostOnePerPoll() {
            return busyIndexGets <= Math.floor(busySeconds / pollSeconds) + 1;
        }
    }

    /**
     * The lookups at one latency.
     *
     * @param latencyMillis the latency held before each request to the store
     * @param lookups       every lookup measured
     * @param polls         the index reads of the warm node
     */
    record LatencyRun(long latencyMillis, List<LookupCost> lookups, Polls polls) {
    }
}
