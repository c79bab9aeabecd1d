package dev.needle.query.ql;

/** A condition's operator: equality ({@code =}, {@code !=}) or an order comparison. */
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
    GE(">=");

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
        return this != EQ && this != NE;
    }

    /**
     * Whether {@code attribute op literal} holds, given the sign of (attribute value − literal):
     * negative, zero or positive.
     */
    public boolean test(int sign) {
        return switch (this) {
            case EQ -> sign == 0;
            case NE -> sign != 0;
            case LT -> sign < 0;
            case LE -> sign <= 0;
            case GT -> sign > 0;
            case GE -> sign >= 0;
        };
    }
}
