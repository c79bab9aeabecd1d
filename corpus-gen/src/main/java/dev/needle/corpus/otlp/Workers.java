package dev.needle.corpus.otlp;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one loop on several threads over a shared source of work (such as a {@link BatchQueue}), stopping
 * them all at the first failure.
 */
final class Workers {

    /** One worker's loop: takes work from the shared source until it hands out none. */
    interface Loop {
        void run() throws IOException, InterruptedException;
    }

    private Workers() {
    }

    /**
     * Runs {@code loop} on {@code count} threads named {@code name-N} and waits for all of them.
     * The first exception a loop throws calls {@code stop} (which makes the shared source hand out
     * no more), lets the other loops finish the work they hold, and is rethrown here (later ones are
     * added to it as suppressed). When the calling thread is interrupted, the workers are interrupted
     * too and waited for, and the interruption is rethrown.
     */
    static void run(String name, int count, Runnable stop, Loop loop) throws IOException, InterruptedException {
        if (count < 1) {
            throw new IllegalArgumentException("the number of threads must be at least 1, got " + count);
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(() -> {
                try {
                    loop.run();
                } catch (InterruptedException e) {
                    // Interrupted by run() below, which reports the interruption itself.
                } catch (Throwable e) {
                    stop.run();
                    if (!failure.compareAndSet(null, e)) {
                        failure.get().addSuppressed(e);
                    }
                }
            }, name + "-" + (i + 1));
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            stop.run();
            threads.forEach(Thread::interrupt);
            for (Thread t : threads) {
                joinQuietly(t);
            }
            throw e;
        }
        Throwable f = failure.get();
        if (f instanceof IOException io) {
            throw io;
        }
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f != null) {
            // A Loop throws nothing else that is checked.
            throw (Error) f;
        }
    }

    /** Waits for a thread that was just interrupted; a second interruption stops waiting. */
    private static void joinQuietly(Thread t) {
        try {
            t.join();
        } catch (InterruptedException again) {
            Thread.currentThread().interrupt();
        }
    }
}
