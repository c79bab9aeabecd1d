package dev.needle.bench.scenario;

/**
 * One scenario's first query in a fresh JVM: how long the JVM took to reach main (reported apart:
 * it is the JVM's cost, not the store's), and how long opening the store and answering took after that.
 *
 * @param jvmStartMillis   JVM start to main
 * @param firstQueryMillis opening the engine and answering the first query
 */
public record ColdRun(Scenario scenario, Setting setting, double jvmStartMillis, double firstQueryMillis, AnswerDigest answer) {
}
