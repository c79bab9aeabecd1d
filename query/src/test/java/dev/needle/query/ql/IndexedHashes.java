package dev.needle.query.ql;

import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.sidecar.AttributeHash;
import java.util.HashMap;
import java.util.Map;

/** The hashes of the pairs the writer indexes for one record, by indexed key: what ATTR_IDX is built from. */
public final class IndexedHashes {

    private IndexedHashes() {
    }

    /** The indexed pairs of span {@code s}. */
    public static Map<String, AttributeHash> of(SpanRecord s) {
        Map<String, AttributeHash> pairs = new HashMap<>();
        new IndexedPairs(new HashingSink(pairs)).span(s);
        return pairs;
    }

    /** The indexed pairs of log record {@code r}. */
    public static Map<String, AttributeHash> of(LogRecord r) {
        Map<String, AttributeHash> pairs = new HashMap<>();
        new IndexedPairs(new HashingSink(pairs)).log(r);
        return pairs;
    }

    private record HashingSink(Map<String, AttributeHash> out) implements IndexedPairs.Sink {
        @Override
        public void string(String key, String value) {
            out.put(key, AttributeHash.ofString(key, value));
        }

        @Override
        public void integer(String key, long value) {
            out.put(key, AttributeHash.ofLong(key, value));
        }

        @Override
        public void dbl(String key, double value) {
            AttributeHash h = AttributeHash.ofDouble(key, value);
            if (h != null) {
                out.put(key, h);
            }
        }

        @Override
        public void bool(String key, boolean value) {
            out.put(key, AttributeHash.ofBool(key, value));
        }
    }
}
