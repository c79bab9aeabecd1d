package dev.needle.query.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The records one lookup has found, each once, as {@link RecordKind#identity} tells them apart. */
final class Found<R> {

    private final RecordKind<R> kind;
    private final Set<Object> seen = new HashSet<>();
    private final List<R> records = new ArrayList<>();

    Found(RecordKind<R> kind) {
        this.kind = kind;
    }

    void add(R record) {
        if (kind.identity() == null || seen.add(kind.identity().apply(record))) {
            records.add(record);
        }
    }

    void addAll(List<R> more) {
        more.forEach(this::add);
    }

    /** The records in the order they were found. */
    List<R> records() {
        return records;
    }
}
