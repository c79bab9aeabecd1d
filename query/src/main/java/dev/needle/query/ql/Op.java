package dev.needle.query.ql;

/** A condition's operator: equality ({@code =}, {@code !=}), an order comparison, or a regex match. */
public enum Op {
    /** {@code =} */
    EQ("="),
    /** {@code !=} */
    NE("!="),
    /** {@code <} */
    LT("<"),
    /** {@code <=} */
    LE("<="),
    /** {@code >} */
    GT(">"),
    /** {@code >=} */
    GE(">="),
    /** {@code =~}: the string matches the regex in full (Tempo anchors it). */
    MATCH("=~"),
    /** {@code !~}: the string does not match the regex in full. */
    NOT_MATCH("!~");

    private final String symbol;

    Op(String symbol) {
        this.symbol = symbol;
    }

    /** How the operator is written in a query. */
    public String symbol() {
        return symbol;
    }

    /** Whether this is an order comparison, which bools do not support. */
    public boolean isOrdering() {
        return this == LT || this == LE || this == GT || this == GE;
    }

    /** Whether this is {@code =~} or {@code !~}, whose right-hand side is a {@link Literal.Regex}. */
    public boolean isRegex() {
        return this == MATCH || this == NOT_MATCH;
    }

    /**
     * Whether {@code attribute op literal} holds, given the sign of (attribute value − literal):
     * negative, zero or positive. A regex match is no comparison: {@link Literal.Regex} decides it.
     */
    public boolean test(int sign) {
        return switch (this) {
            case EQ -> sign == 0;
            case NE -> sign != 0;
            case LT -> sign < 0;
            case LE -> sign <= 0;
            case GT -> sign > 0;
            case GE -> sign >= 0;
            case MATCH, NOT_MATCH -> throw new IllegalStateException(symbol + " compares no order: a regex decides it");
        };
    }
}
