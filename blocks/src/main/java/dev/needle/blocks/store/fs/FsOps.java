package dev.needle.blocks.store.fs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Every filesystem change {@link FsBlockStore} makes, one method per step, so that a test can
 * fail any single step and check that readers still see a whole block or none.
 */
interface FsOps {

    /** The real filesystem. */
    FsOps REAL = new Real();

    void createDirectories(Path dir) throws IOException;

    /** A new file; fails if it exists. */
    OutputStream newOutputStream(Path file) throws IOException;

    void fsyncFile(Path file) throws IOException;

    void fsyncDir(Path dir) throws IOException;

    /** Renames atomically: the target appears whole or not at all. */
    void move(Path from, Path to) throws IOException;

    /** Deletes a directory and everything below it; a missing directory is not an error. */
    void deleteRecursively(Path dir) throws IOException;

    /** The default implementation over {@link Files}. */
    final class Real implements FsOps {

        private Real() {
        }

        @Override
        public void createDirectories(Path dir) throws IOException {
            Files.createDirectories(dir);
        }

        @Override
        public OutputStream newOutputStream(Path file) throws IOException {
            return Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }

        @Override
        public void fsyncFile(Path file) throws IOException {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }

        @Override
        public void fsyncDir(Path dir) throws IOException {
            // Opening a directory for reading and forcing it syncs its entries on Linux and macOS.
            try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void deleteRecursively(Path dir) throws IOException {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        }
    }
}
