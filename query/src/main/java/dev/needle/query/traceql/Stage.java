package dev.needle.query.traceql;

import java.util.List;
import java.util.Objects;

/** One stage of a pipeline: a spanset expression, or one of the operations below on the spansets. */
public sealed interface Stage permits SpansetExpr, Stage.ScalarFilter, Stage.GroupBy, Stage.Coalesce, Stage.Select {

    /**
     * {@code aggregate op value}, such as {@code count() > 2} or {@code avg(duration) > 1s}: keeps the
     * spansets whose aggregate compares so, and records the aggregate's value on them.
     */
    record ScalarFilter(Aggregate aggregate, FieldExpr.BinaryOp op, Value value) implements Stage {
        public ScalarFilter {
            Objects.requireNonNull(aggregate, "aggregate");
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return aggregate + " " + op.symbol() + " " + value;
        }
    }

    /** {@code count()}, or {@code avg|max|min|sum(field)} over the spans of a spanset. */
    record Aggregate(AggregateOp op, FieldExpr field) {
        public Aggregate {
            Objects.requireNonNull(op, "op");
            if ((op == AggregateOp.COUNT) != (field == null)) {
                throw new IllegalArgumentException(op == AggregateOp.COUNT ? "count() takes no field" : op.word() + "() takes a field");
            }
        }

        @Override
        public String toString() {
            return op.word() + "(" + (field == null ? "" : field) + ")";
        }
    }

    /** The aggregates of scalar filters. */
    enum AggregateOp {
        COUNT, AVG, MAX, MIN, SUM;

        public String word() {
            return name().toLowerCase();
        }
    }

    /** {@code by(field)}: splits each spanset into one per value of the field. */
    record GroupBy(FieldExpr field) implements Stage {
        public GroupBy {
            Objects.requireNonNull(field, "field");
        }

        @Override
        public String toString() {
            return "by(" + field + ")";
        }
    }

    /** {@code coalesce()}: joins the spansets into one. */
    record Coalesce() implements Stage {
        @Override
        public String toString() {
            return "coalesce()";
        }
    }

    /** {@code select(a, b, …)}: returns these fields with each span. */
    record Select(List<FieldExpr> fields) implements Stage {
        public Select {
            fields = List.copyOf(fields);
            if (fields.isEmpty()) {
                throw new IllegalArgumentException("select() needs at least one field");
            }
        }

        @Override
        public String toString() {
            return "select(" + String.join(", ", fields.stream().map(Object::toString).toList()) + ")";
        }
    }
}
