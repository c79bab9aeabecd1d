package dev.needle.bench.scenario;

import dev.needle.query.engine.Explain;

/**
 * One scenario under one mechanism setting, measured in a warm process: its answer, what the
 * engine's EXPLAIN says it did, and the latency of repeated runs.
 *
 * @param iterations    warm runs timed (after the first, untimed one)
 * @param warmP50Millis median warm latency
 * @param warmP99Millis 99th-percentile warm latency
 */
public record Measurement(Scenario scenario, Setting setting, AnswerDigest answer, Explain.Totals totals, int iterations,
                          double warmP50Millis, double warmP99Millis) {
}
