package dev.needle.blocks.store;

import dev.needle.blocks.store.fs.FsBlockStore;

/**
 * A validated tenant id, safe to use as one directory name: ASCII letters, digits, {@code -},
 * {@code _} and {@code .}, 1 to 150 characters, neither {@code .} nor {@code ..}, and not
 * {@code wal} in any case.
 *
 * <p>{@code wal} is refused because docs/DESIGN.md puts the write-ahead log at {@code <data>/wal/},
 * beside the tenant directories: a tenant of that name would share a directory with the WAL.
 * Refusing one name keeps the documented layout; it is compared ignoring case so that the rule
 * also holds on a case-insensitive filesystem.
 */
public record TenantId(String value) implements Comparable<TenantId> {

    /** Tempo's tenant when a request carries no {@code X-Scope-OrgID}. */
    public static final TenantId DEFAULT = new TenantId("single-tenant");

    /** The longest tenant id allowed, as Tempo and Loki allow. */
    public static final int MAX_LENGTH = 150;

    /** How much of an offending id an error message quotes. */
    private static final int QUOTE_LIMIT = 40;

    /** Every constructed id is valid, so that no path is ever built from an unchecked string. */
    public TenantId {
        String problem = problem(value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /**
     * Validates {@code raw} as a tenant id.
     *
     * @throws IllegalArgumentException naming what is wrong and quoting the id (escaped, truncated)
     */
    public static TenantId of(String raw) {
        return new TenantId(raw);
    }

    /** The tenant of a request's {@code X-Scope-OrgID} header: {@link #DEFAULT} when absent or blank. */
    public static TenantId fromHeader(String headerOrNull) {
        return headerOrNull == null || headerOrNull.isBlank() ? DEFAULT : of(headerOrNull);
    }

    /** Whether {@code raw} is a valid tenant id; for listing directories without exceptions. */
    public static boolean isValid(String raw) {
        return problem(raw) == null;
    }

    @Override
    public int compareTo(TenantId o) {
        return value.compareTo(o.value);
    }

    @Override
    public String toString() {
        return value;
    }

    /** What is wrong with {@code raw}, or null when it is a valid tenant id. */
    private static String problem(String raw) {
        if (raw == null) {
            return "tenant id is missing (null)";
        }
        if (raw.isEmpty()) {
            return "tenant id is empty";
        }
        if (raw.length() > MAX_LENGTH) {
            return "tenant id is too long: " + raw.length() + " characters, at most " + MAX_LENGTH
                    + " allowed: " + quote(raw);
        }
        if (raw.equals(".") || raw.equals("..")) {
            return "tenant id must not be \".\" or \"..\": " + quote(raw);
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (!allowed(c)) {
                return String.format("tenant id has a character other than ASCII letters, digits, '-', '_' and '.'"
                        + " at index %d (U+%04X): %s", i, (int) c, quote(raw));
            }
        }
        if (raw.equalsIgnoreCase(FsBlockStore.WAL_DIR)) {
            return "tenant id " + quote(raw) + " is reserved: <data>/" + FsBlockStore.WAL_DIR
                    + "/ holds the write-ahead log";
        }
        return null;
    }

    private static boolean allowed(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '_' || c == '.';
    }

    /** {@code raw} in double quotes, printable ASCII only, cut after {@link #QUOTE_LIMIT} characters. */
    public static String quote(String raw) {
        StringBuilder sb = new StringBuilder("\"");
        int shown = Math.min(raw.length(), QUOTE_LIMIT);
        for (int i = 0; i < shown; i++) {
            char c = raw.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        sb.append('"');
        if (shown < raw.length()) {
            sb.append("... (").append(raw.length()).append(" characters)");
        }
        return sb.toString();
    }
}
