package dev.needle.blocks.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The directory a command is given to read or write ({@code --data}, {@code --out}), checked
 * before first use. The file system's own exceptions often carry nothing but the path; these
 * checks fail with a message that says what is wrong, for the command to print as it is.
 */
public final class DataDirectory {

    private DataDirectory() {
    }

    /** {@code dir} made absolute, for a command that only reads it; fails unless it is a readable directory. */
    public static Path requireReadable(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(abs, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new IOException(abs + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new IOException(abs + " cannot be read: permission denied", e);
        } catch (FileSystemException e) {
            throw new IOException(abs + " cannot be read: " + describe(e), e);
        }
        if (!attributes.isDirectory()) {
            throw new IOException(notADirectory(abs));
        }
        if (!Files.isReadable(abs) || !Files.isExecutable(abs)) {
            throw new IOException(abs + " cannot be read: permission denied");
        }
        return abs;
    }

    /**
     * {@code dir} made absolute, for a command that writes into it: created with its parents when
     * missing; fails unless it then is a writable directory.
     */
    public static Path createWritable(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.exists(abs) && !Files.isDirectory(abs)) {
            throw new IOException(notADirectory(abs));
        }
        try {
            Files.createDirectories(abs);
        } catch (FileSystemException e) {
            throw new IOException(abs + " cannot be created: " + whyNotCreated(abs, e), e);
        }
        if (!Files.isWritable(abs)) {
            throw new IOException(abs + " is not writable: permission denied");
        }
        return abs;
    }

    /** A file system failure in words: its exceptions always name the file but say why only sometimes. */
    static String describe(FileSystemException e) {
        if (e.getReason() != null) {
            return e.getMessage();
        }
        return e.getFile() + (e instanceof AccessDeniedException ? ": permission denied"
                : e instanceof NoSuchFileException ? " does not exist"
                : e instanceof FileAlreadyExistsException ? " already exists"
                : e instanceof NotDirectoryException ? " is not a directory"
                : ": " + e.getClass().getSimpleName());
    }

    private static String notADirectory(Path path) {
        return path + (Files.isRegularFile(path) ? " is a file, not a directory" : " is not a directory");
    }

    /** Why {@code dir} could not be created: a file in the way of its path, or what the file system said, as mkdir says it. */
    private static String whyNotCreated(Path dir, FileSystemException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        Path existing = dir.getParent();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            return notADirectory(existing);
        }
        if (e.getReason() != null) {
            return e.getReason();
        }
        return e instanceof NoSuchFileException ? "no such file or directory"
                : e instanceof FileAlreadyExistsException ? "a file of that name is in the way"
                : e.getClass().getSimpleName();
    }
}
