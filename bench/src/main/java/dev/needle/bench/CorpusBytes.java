package dev.needle.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The bytes of a data directory's blocks: every data.arrow, and every sidecar (a file named
 * {@code *_IDX}), over all tenants and signals.
 */
public record CorpusBytes(long data, long sidecars) {

    /** Walks {@code dir} and adds the files up. */
    public static CorpusBytes of(Path dir) throws IOException {
        long data = 0;
        long sidecars = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (name.equals("data.arrow")) {
                    data += Files.size(f);
                } else if (name.endsWith("_IDX")) {
                    sidecars += Files.size(f);
                }
            }
        }
        return new CorpusBytes(data, sidecars);
    }
}
