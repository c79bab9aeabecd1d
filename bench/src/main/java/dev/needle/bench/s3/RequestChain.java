package dev.needle.bench.s3;

import dev.needle.testkit.FaultProxy.Exchange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the requests of one lookup were, from the proxy's log: each named by what it asked for
 * ({@code INDEX}, {@code LIST}, {@code meta.json}, {@code data.arrow tail}, {@code TRACE_IDX}, ...),
 * and the longest chain of them in which each was sent only after the one before it had been
 * answered in full. The length of that chain is the lookup's number of <em>sequential round
 * trips</em>: requests in it could not overlap, so at a latency L per request the lookup took at
 * least that many times L; requests outside it overlapped one in the chain.
 */
final class RequestChain {

    private RequestChain() {
    }

    /** What {@code e} asked for, in {@code bucket}: the key's last segment, or LIST, HEAD bucket. */
    static String label(Exchange e, String bucket) {
        String target = e.target();
        int question = target.indexOf('?');
        String path = question < 0 ? target : target.substring(0, question);
        String query = question < 0 ? "" : target.substring(question + 1);
        if (query.contains("list-type=") || query.contains("prefix=")) {
            return "LIST";
        }
        String key = path.startsWith("/" + bucket + "/") ? path.substring(bucket.length() + 2) : "";
        if (key.isEmpty()) {
            return e.method() + " bucket";
        }
        String file = key.substring(key.lastIndexOf('/') + 1);
        String method = e.method().equals("GET") ? "" : e.method() + " ";
        if (file.equals("data.arrow") && e.range() != null && e.range().startsWith("bytes=-")) {
            return method + "data.arrow tail";
        }
        return method + file + (e.status() == 304 ? " (304, unchanged)" : "");
    }

    /** Whether {@code e} read one of a block's files ({@code tenant/signal/block/file}), as EXPLAIN counts per block. */
    static boolean ofBlock(Exchange e, String bucket) {
        String target = e.target();
        if (target.contains("?")) {
            return false;
        }
        String prefix = "/" + bucket + "/";
        return target.startsWith(prefix) && target.substring(prefix.length()).split("/").length == 4;
    }

    /** The longest chain of {@code log}'s requests in which each started after the one before it ended, earliest first. */
    static List<Exchange> longest(List<Exchange> log) {
        List<Exchange> byStart = new ArrayList<>(log);
        byStart.sort(Comparator.comparingLong(Exchange::startNanos));
        int n = byStart.size();
        int[] length = new int[n];
        int[] previous = new int[n];
        int best = -1;
        for (int i = 0; i < n; i++) {
            length[i] = 1;
            previous[i] = -1;
            for (int j = 0; j < i; j++) {
                if (byStart.get(j).endNanos() <= byStart.get(i).startNanos() && length[j] + 1 > length[i]) {
                    length[i] = length[j] + 1;
                    previous[i] = j;
                }
            }
            if (best < 0 || length[i] > length[best]) {
                best = i;
            }
        }
        List<Exchange> chain = new ArrayList<>();
        for (int i = best; i >= 0; i = previous[i]) {
            chain.add(0, byStart.get(i));
        }
        return chain;
    }
}
