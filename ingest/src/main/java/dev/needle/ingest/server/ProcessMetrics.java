package dev.needle.ingest.server;

import com.sun.management.OperatingSystemMXBean;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The server process's CPU, garbage-collection and JIT-compilation time, read from the JVM when
 * scraped, under the names Prometheus's own JVM instrumentation gives them, so that dashboards and
 * the ingest benchmark can put them beside the records accepted (and tell a JIT still warming up
 * from the steady cost of a record).
 *
 * <table>
 * <caption>Metrics</caption>
 * <tr><th>name</th><th>type</th><th>counts</th></tr>
 * <tr><td>{@code process_cpu_seconds_total}</td><td>counter</td><td>CPU time of every thread of the process, user and system</td></tr>
 * <tr><td>{@code jvm_gc_collection_seconds_total{gc}}</td><td>counter</td><td>time each collector reports it spent
 *     collecting (for G1's young and mixed collections, their pauses)</td></tr>
 * <tr><td>{@code jvm_compilation_time_seconds_total}</td><td>counter</td><td>time the JIT compilers report they
 *     spent compiling, elapsed and summed over their threads</td></tr>
 * </table>
 */
final class ProcessMetrics {

    private ProcessMetrics() {
    }

    /** Registers the counters in {@code registry}. */
    static void register(PrometheusRegistry registry) {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        CounterWithCallback.builder().name("process_cpu_seconds_total")
                .help("CPU time of every thread of the process, user and system")
                .callback(cb -> cb.call(Math.max(0, os.getProcessCpuTime()) / 1e9)).register(registry);
        CounterWithCallback.builder().name("jvm_gc_collection_seconds_total")
                .help("Time each garbage collector reports it spent collecting")
                .labelNames("gc")
                .callback(cb -> {
                    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                        cb.call(Math.max(0, gc.getCollectionTime()) / 1000.0, gc.getName());
                    }
                }).register(registry);
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
            CounterWithCallback.builder().name("jvm_compilation_time_seconds_total")
                    .help("Time the JIT compilers report they spent compiling")
                    .callback(cb -> cb.call(jit.getTotalCompilationTime() / 1000.0)).register(registry);
        }
    }
}
