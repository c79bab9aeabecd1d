package dev.needle.bench.server;

import java.util.List;

/** Starts a needle command in a fresh process: the command line for its arguments, and how a report names it. */
public interface Launcher {

    /** The command line that runs the command with {@code args}. */
    List<String> command(List<String> args);

    /** The launch in a report's words, such as {@code ./needle query}. */
    String describe();
}
