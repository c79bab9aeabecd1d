package dev.needle.blocks.store;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/** An executor that runs each task at once on the calling thread: {@link BlockStore#readPool} of a local store. */
final class CallerRuns extends AbstractExecutorService {

    static final CallerRuns INSTANCE = new CallerRuns();

    private CallerRuns() {
    }

    @Override
    public void execute(Runnable command) {
        command.run();
    }

    @Override
    public void shutdown() {
        throw new UnsupportedOperationException("shared: never shut down");
    }

    @Override
    public List<Runnable> shutdownNow() {
        throw new UnsupportedOperationException("shared: never shut down");
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return false;
    }
}
