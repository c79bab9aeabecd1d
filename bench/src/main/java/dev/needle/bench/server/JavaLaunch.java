package dev.needle.bench.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a needle executable starts in a fresh JVM: {@code java -jar JAR}, as the {@code needle} script
 * runs it, or a main class on a class path (the benchmark's own, where no jar is built, as in tests).
 *
 * @param jar       the executable jar, or null for a class path launch
 * @param classPath the class path, or null for a jar launch
 * @param mainClass the main class of a class path launch, or null for a jar launch
 */
public record JavaLaunch(Path jar, String classPath, String mainClass) implements Launcher {

    /** Arrow reads direct buffers through java.nio internals; a jar's manifest says so, a class path launch must. */
    public static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    /**
     * Lets Netty, under Arrow's allocator, make direct buffers without {@code ByteBuffer.allocateDirect},
     * which zeroes every new 4 MiB chunk; the {@code needle} script passes it to every command.
     */
    public static final String NO_ZEROING = "-Dio.netty.tryReflectionSetAccessible=true";

    public JavaLaunch {
        if ((jar == null) == (classPath == null) || (classPath == null) != (mainClass == null)) {
            throw new IllegalArgumentException("give a jar, or a class path and a main class; got jar " + jar
                    + ", class path " + classPath + ", main class " + mainClass);
        }
    }

    /** {@code java -jar jar}. */
    public static JavaLaunch jar(Path jar) {
        return new JavaLaunch(Objects.requireNonNull(jar, "jar"), null, null);
    }

    /** {@code java -cp classPath main}. */
    public static JavaLaunch classPath(String classPath, Class<?> main) {
        return new JavaLaunch(null, Objects.requireNonNull(classPath, "classPath"), main.getName());
    }

    /** The jar when {@code jarOrNull} is given, else {@code main} on this JVM's class path. */
    public static JavaLaunch jarOr(Path jarOrNull, Class<?> main) {
        return jarOrNull != null ? jar(jarOrNull) : classPath(System.getProperty("java.class.path"), main);
    }

    /** The command line: this JVM's {@code java}, {@link #NO_ZEROING}, {@code jvmArgs}, the jar or the class path and main class, then {@code args}. */
    public List<String> command(List<String> jvmArgs, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(NO_ZEROING);
        command.addAll(jvmArgs);
        if (jar != null) {
            command.addAll(List.of("-jar", jar.toString()));
        } else {
            command.addAll(List.of(ADD_OPENS, "-cp", classPath, mainClass));
        }
        command.addAll(args);
        return command;
    }

    @Override
    public List<String> command(List<String> args) {
        return command(List.of(), args);
    }

    /** The launch in a report's words: {@code java -jar query-0.1.0-SNAPSHOT-cli.jar} or {@code java -cp <class path> Main}. */
    @Override
    public String describe() {
        return jar != null ? "java -jar " + jar.getFileName()
                : "java -cp <the benchmark's class path> " + mainClass.substring(mainClass.lastIndexOf('.') + 1);
    }
}
