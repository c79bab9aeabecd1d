package dev.needle.query.cli;

/**
 * One trace of a server's search answer, in Grafana Tempo's shape: Tempo's {@code /api/search}
 * answers matching traces, named by their root span, rather than the matching spans themselves.
 *
 * @param traceId           the trace id in hex
 * @param rootServiceName   the service of the trace's root span, as the server names it
 * @param rootTraceName     the name of the trace's root span
 * @param startTimeUnixNano when the trace started
 * @param durationMs        how long it lasted, in milliseconds
 */
record TraceSummary(String traceId, String rootServiceName, String rootTraceName, long startTimeUnixNano,
                    long durationMs) {
}
