package dev.needle.bench.scenario;

/**
 * One manifest probe measured: through the engine, and, where they were run, through DuckDB and
 * through the HTTP API of a running server.
 *
 * @param probe  the probe
 * @param needle the engine's answer, plan totals and warm latency, under all mechanisms
 * @param duckdb DuckDB's answer and warm latency, or null when the peer did not run it
 * @param http   the warm latency through the HTTP API, or null when it was not asked for
 */
record ProbeResult(ManifestProbes.Probe probe, Measurement needle, PeerRunner.PeerProbe duckdb, WarmLoop.Timing http) {

    /** This result with DuckDB's. */
    ProbeResult withDuckDb(PeerRunner.PeerProbe peer) {
        return new ProbeResult(probe, needle, peer, http);
    }

    /** This result with the HTTP API's latency. */
    ProbeResult withHttp(WarmLoop.Timing timing) {
        return new ProbeResult(probe, needle, duckdb, timing);
    }
}
