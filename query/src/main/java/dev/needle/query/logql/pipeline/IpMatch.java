package dev.needle.query.logql.pipeline;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * The address pattern of {@code ip("…")}, as Loki's: one address ({@code 192.168.0.1}), a CIDR
 * prefix ({@code 10.0.0.0/8}) or a range ({@code 192.168.0.1-192.168.0.9}), IPv4 or IPv6. A label
 * matches when its value is such an address; a line when any address-like run of characters in it
 * is one.
 */
public final class IpMatch {

    private static final Pattern V4 = Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
    private static final String V4_CHARS = "0123456789.";
    private static final String V6_CHARS = "0123456789abcdefABCDEF:.";

    private final String pattern;
    private final boolean v6;
    private final BigInteger low;
    private final BigInteger high;

    private IpMatch(String pattern, boolean v6, BigInteger low, BigInteger high) {
        this.pattern = pattern;
        this.v6 = v6;
        this.low = low;
        this.high = high;
    }

    /** The pattern, or an error naming it. */
    public static IpMatch parse(String pattern) {
        String p = pattern.trim();
        int slash = p.indexOf('/');
        int dash = p.indexOf('-');
        Address a;
        if (slash >= 0) {
            a = address(p.substring(0, slash));
            int bits = a == null ? -1 : prefixBits(p.substring(slash + 1), a.v6 ? 128 : 32);
            if (bits >= 0) {
                int width = a.v6 ? 128 : 32;
                BigInteger hostMask = BigInteger.ONE.shiftLeft(width - bits).subtract(BigInteger.ONE);
                BigInteger network = a.value.andNot(hostMask);
                return new IpMatch(pattern, a.v6, network, network.or(hostMask));
            }
        } else if (dash >= 0) {
            a = address(p.substring(0, dash).trim());
            Address b = address(p.substring(dash + 1).trim());
            if (a != null && b != null && a.v6 == b.v6 && a.value.compareTo(b.value) <= 0) {
                return new IpMatch(pattern, a.v6, a.value, b.value);
            }
        } else if ((a = address(p)) != null) {
            return new IpMatch(pattern, a.v6, a.value, a.value);
        }
        throw new IllegalArgumentException("ip: invalid pattern: " + pattern);
    }

    /** Whether {@code text} is an address this pattern holds. */
    public boolean matchesAddress(String text) {
        Address a = address(text);
        return a != null && a.v6 == v6 && a.value.compareTo(low) >= 0 && a.value.compareTo(high) <= 0;
    }

    /** Whether any address-like run of characters in the line is an address this pattern holds, as Loki scans. */
    public boolean matchesLine(String line) {
        int n = line.length();
        for (int i = 0; i < n; i++) {
            String charset;
            if (i + 3 < n && Character.isDigit(line.charAt(i))
                    && (line.charAt(i + 1) == '.' || line.charAt(i + 2) == '.' || line.charAt(i + 3) == '.')) {
                charset = V4_CHARS;
            } else if (v6Hint(line, i)) {
                charset = V6_CHARS;
            } else {
                continue;
            }
            int end = i;
            while (end < n && charset.indexOf(line.charAt(end)) >= 0) {
                end++;
            }
            if (matchesAddress(line.substring(i, end))) {
                return true;
            }
            i = end;
        }
        return false;
    }

    @Override
    public String toString() {
        return "ip(\"" + pattern + "\")";
    }

    private static boolean v6Hint(String s, int i) {
        char c0 = at(s, i);
        char c1 = at(s, i + 1);
        char c2 = at(s, i + 2);
        char c3 = at(s, i + 3);
        char c4 = at(s, i + 4);
        return c0 == ':' && c1 == ':' && hex(c2) || hex(c0) && c1 == ':' || hex(c0) && hex(c1) && c2 == ':'
                || hex(c0) && hex(c1) && hex(c2) && c3 == ':' || hex(c0) && hex(c1) && hex(c2) && hex(c3) && c4 == ':';
    }

    private static char at(String s, int i) {
        return i < s.length() ? s.charAt(i) : 0;
    }

    private static boolean hex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static int prefixBits(String s, int max) {
        if (!s.matches("0|[1-9][0-9]{0,2}")) {
            return -1;
        }
        int bits = Integer.parseInt(s);
        return bits <= max ? bits : -1;
    }

    private record Address(boolean v6, BigInteger value) {
    }

    /** An IPv4 address in dotted decimal, or an IPv6 address in its textual forms; null for anything else. */
    private static Address address(String s) {
        if (V4.matcher(s).matches()) {
            long v = 0;
            for (String part : s.split("\\.")) {
                int octet = Integer.parseInt(part);
                if (octet > 255) {
                    return null;
                }
                v = v << 8 | octet;
            }
            return new Address(false, BigInteger.valueOf(v));
        }
        if (s.indexOf(':') < 0 || !s.chars().allMatch(c -> V6_CHARS.indexOf(c) >= 0)) {
            return null;
        }
        try {
            // Only hex digits, colons and dots reach here, so no name is ever looked up.
            byte[] bytes = InetAddress.getByName("[" + s + "]").getAddress();
            if (bytes.length != 16) {
                return null;
            }
            return new Address(true, new BigInteger(1, bytes));
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
