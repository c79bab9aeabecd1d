package dev.needle.bench.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A command run through the {@code needle} script, exactly as a user types it: with the JVM options
 * and the class-data sharing archive the script chooses, so that a fresh process is timed as users
 * get it.
 *
 * @param script  the {@code needle} script
 * @param command its command, such as {@code query}
 */
public record ScriptLaunch(Path script, String command) implements Launcher {

    public ScriptLaunch {
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(command, "command");
    }

    @Override
    public List<String> command(List<String> args) {
        List<String> line = new ArrayList<>(List.of(script.toString(), command));
        line.addAll(args);
        return line;
    }

    @Override
    public String describe() {
        return "./needle " + command;
    }
}
