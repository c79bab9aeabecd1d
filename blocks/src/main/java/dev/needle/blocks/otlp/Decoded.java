package dev.needle.blocks.otlp;

import java.util.List;

/** The valid records of one export request, and the rejected count and message for its reply's partial_success. */
public record Decoded<T>(List<T> records, int rejected, String message) {

    /*
     * The records of one ResourceSpans/ResourceLogs share one Resource instance, and those of one
     * ScopeSpans/ScopeLogs one Scope instance: the block writer skips a repeated resource by identity.
     * The message is empty when nothing was rejected.
     */

    public Decoded {
        records = List.copyOf(records);
    }
}
