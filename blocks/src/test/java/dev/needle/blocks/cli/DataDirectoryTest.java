package dev.needle.blocks.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A directory given on the command line: each way it can be unusable has its own message. */
class DataDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void requireReadable_existingDirectory_isItsAbsolutePath() throws IOException {
        assertEquals(tmp.toAbsolutePath(), DataDirectory.requireReadable(tmp.resolve("x/..")));
    }

    @Test
    void requireReadable_missingOrAFile_saysWhich() throws IOException {
        Path missing = tmp.resolve("missing");
        assertEquals(missing + " does not exist",
                assertThrows(IOException.class, () -> DataDirectory.requireReadable(missing)).getMessage());
        assertTrue(Files.notExists(missing));
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertEquals(file + " is a file, not a directory",
                assertThrows(IOException.class, () -> DataDirectory.requireReadable(file)).getMessage());
    }

    @Test
    void createWritable_missing_isCreatedWithItsParents() throws IOException {
        Path dir = tmp.resolve("a/b/c");
        assertEquals(dir, DataDirectory.createWritable(dir));
        assertTrue(Files.isDirectory(dir));
        assertEquals(dir, DataDirectory.createWritable(dir));
    }

    @Test
    void createWritable_aFileOrAFileInThePath_saysWhichFile() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertEquals(file + " is a file, not a directory",
                assertThrows(IOException.class, () -> DataDirectory.createWritable(file)).getMessage());
        Path below = file.resolve("sub/dir");
        assertEquals(below + " cannot be created: " + file + " is a file, not a directory",
                assertThrows(IOException.class, () -> DataDirectory.createWritable(below)).getMessage());
    }

    @Test
    void describe_namesTheFileAndWhy() {
        assertEquals("/d: permission denied", DataDirectory.describe(new AccessDeniedException("/d")));
        assertEquals("/d does not exist", DataDirectory.describe(new NoSuchFileException("/d")));
        assertEquals("/d: Read-only file system", DataDirectory.describe(new FileSystemException("/d", null,
                "Read-only file system")));
    }
}
