package dev.needle.blocks.store.fs;

import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.StagedBlock;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded {@link BlockStore}: blocks are directories on the local filesystem.
 *
 * <pre>
 * &lt;root&gt;/&lt;tenant&gt;/&lt;signal&gt;/&lt;block&gt;/      a published block (a {@link BlockName}) and its files
 * &lt;root&gt;/&lt;tenant&gt;/&lt;signal&gt;/.tmp-&lt;id&gt;/      a block being written; never read; removed at start-up
 * &lt;root&gt;/&lt;tenant&gt;/&lt;signal&gt;/.tmp-del-&lt;id&gt;/  a block being deleted; removed at start-up
 * &lt;root&gt;/&lt;tenant&gt;/&lt;signal&gt;/INDEX            the index: a symbolic link to the current .index-&lt;id&gt;
 * &lt;root&gt;/&lt;tenant&gt;/&lt;signal&gt;/.index-&lt;id&gt;      one version of the index object, never changed once written
 * &lt;root&gt;/&lt;tenant&gt;/&lt;signal&gt;/.index.lock       locked while the index is replaced
 * &lt;root&gt;/wal/                            ingest's write-ahead log, never a tenant (see {@link TenantId})
 * </pre>
 *
 * <p>A block is published by one atomic rename of its staging directory, after every file and the
 * staging directory are synced, and the rename is then synced; a block is deleted by renaming it
 * out of sight first. A reader therefore sees a whole block or none. Thread-safe; a
 * {@link PendingBlock} is for one thread.
 *
 * <p>The index is replaced by writing a new {@code .index-<id>} file, syncing it, and renaming a new
 * link over {@code INDEX}, under a lock on {@code .index.lock} (held across processes and within this
 * one); its version token is the name the link points to, which is never used twice, so that a
 * reader learns whether it changed from the link alone.
 *
 * <p>{@link #readOnly} opens a store for tools that look at a live server's directory: it changes
 * nothing on disk, not even the start-up sweep, which would delete blocks being written.
 */
public final class FsBlockStore implements BlockStore {

    /** The directory beside the tenants where ingest keeps its write-ahead log; no tenant may take its name. */
    public static final String WAL_DIR = "wal";

    /** The directory, inside {@link #WAL_DIR}, where recovery keeps copies of damaged log segments. */
    public static final String DAMAGED_WAL_DIR = "damaged";

    /** Prefix of staging and deleting directories, which no reader ever looks into. */
    private static final String TMP_PREFIX = ".tmp-";

    private static final String DELETING_PREFIX = TMP_PREFIX + "del-";

    /** Prefix of the files holding versions of the index object. */
    private static final String INDEX_FILE_PREFIX = ".index-";

    private static final String INDEX_LOCK = ".index.lock";

    /** In-process locks of the index lock files: a file lock is the process's, so threads of one process need their own. */
    private static final ConcurrentHashMap<Path, ReentrantLock> INDEX_LOCKS = new ConcurrentHashMap<>();

    /** How often a read retries when the index is replaced between reading its link and its file. */
    private static final int INDEX_READ_ATTEMPTS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(FsBlockStore.class);

    private final Path root;
    private final FsOps ops;
    private final boolean readOnly;
    private final List<Path> removedAtStartup = new ArrayList<>();

    /**
     * Opens the store at {@code root}, creating it if missing, and removes the staging and deleting
     * directories that a previous process left behind.
     */
    public FsBlockStore(Path root) throws IOException {
        this(root, FsOps.REAL);
    }

    FsBlockStore(Path root, FsOps ops) throws IOException {
        this(root, ops, false);
        ops.createDirectories(this.root);
        removedAtStartup.addAll(removeStaleTmpDirs());
    }

    private FsBlockStore(Path root, FsOps ops, boolean readOnly) {
        this.root = root.toAbsolutePath().normalize();
        this.ops = ops;
        this.readOnly = readOnly;
    }

    /**
     * Opens the store at {@code root} for reading only: it neither creates {@code root} nor removes
     * {@code .tmp-*} directories, which on a running server are blocks being written, and its
     * {@link #create} and {@link #delete} throw {@link UnsupportedOperationException}.
     */
    public static FsBlockStore readOnly(Path root) {
        return new FsBlockStore(root, FsOps.REAL, true);
    }

    /** The root directory, for local tools. */
    public Path root() {
        return root;
    }

    /** The directory of a block, for local tools; it may not exist. */
    public Path blockDir(BlockRef block) {
        return signalDir(block.tenant(), block.signal()).resolve(block.name().toString());
    }

    /** The damaged write-ahead log segments recovery kept, by file name; empty when there are none. */
    public List<String> damagedWalSegments() throws IOException {
        Path dir = root.resolve(WAL_DIR).resolve(DAMAGED_WAL_DIR);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    /** The {@code .tmp-*} directories this store removed when it was opened. */
    public List<Path> removedAtStartup() {
        return Collections.unmodifiableList(removedAtStartup);
    }

    /**
     * The {@code .tmp-*} directories of a tenant's signal, in name order: blocks being written or
     * deleted by a running process, or leftovers of one that crashed.
     */
    public List<Path> tmpDirs(TenantId tenant, Signal signal) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (Path dir : subdirectories(signalDir(tenant, signal))) {
            if (dir.getFileName().toString().startsWith(TMP_PREFIX)) {
                dirs.add(dir);
            }
        }
        Collections.sort(dirs);
        return dirs;
    }

    @Override
    public List<TenantId> tenants() throws IOException {
        List<TenantId> tenants = new ArrayList<>();
        for (Path dir : subdirectories(root)) {
            String name = dir.getFileName().toString();
            if (TenantId.isValid(name) && hasSignalDir(dir)) {
                tenants.add(TenantId.of(name));
            }
        }
        Collections.sort(tenants);
        return tenants;
    }

    @Override
    public List<BlockRef> list(TenantId tenant, Signal signal) throws IOException {
        List<BlockRef> blocks = new ArrayList<>();
        for (Path dir : subdirectories(signalDir(tenant, signal))) {
            BlockName.parse(dir.getFileName().toString())
                    .ifPresent(name -> blocks.add(new BlockRef(tenant, signal, name)));
        }
        Collections.sort(blocks);
        return blocks;
    }

    /** Returns a read-only {@link FileChannel}. */
    @Override
    public SeekableByteChannel open(BlockRef block, String file) throws IOException {
        return FileChannel.open(blockDir(block).resolve(BlockRef.checkFileName(file)), StandardOpenOption.READ);
    }

    @Override
    public PendingBlock create(TenantId tenant, Signal signal) throws IOException {
        checkWritable("create a block");
        Path staging = signalDir(tenant, signal).resolve(TMP_PREFIX + BlockName.newId());
        ops.createDirectories(staging);
        return new FsPendingBlock(tenant, signal, staging);
    }

    /**
     * Renames the block out of sight, syncs that, then deletes its files. If deleting the files
     * fails the block is already invisible, and the leftover is removed at the next start-up.
     */
    @Override
    public void delete(BlockRef block) throws IOException {
        checkWritable("delete " + block);
        Path dir = blockDir(block);
        Path deleting = dir.resolveSibling(DELETING_PREFIX + BlockName.newId());
        try {
            ops.move(dir, deleting);
        } catch (NoSuchFileException e) {
            return; // never published, or already deleted
        }
        // Synced before the files go, so that a crash mid-way cannot bring back a partial block.
        ops.fsyncDir(dir.getParent());
        ops.deleteRecursively(deleting);
    }

    @Override
    public Optional<IndexObject> readIndex(TenantId tenant, Signal signal, String knownToken) throws IOException {
        Path dir = signalDir(tenant, signal);
        for (int attempt = 0; attempt < INDEX_READ_ATTEMPTS; attempt++) {
            String token;
            try {
                token = Files.readSymbolicLink(dir.resolve(INDEX_OBJECT)).toString();
            } catch (NoSuchFileException e) {
                return Optional.empty();
            } catch (NotLinkException e) {
                throw new IOException(dir.resolve(INDEX_OBJECT) + " is not a link to a version of the index", e);
            }
            if (!token.startsWith(INDEX_FILE_PREFIX) || token.contains("/")) {
                throw new IOException(dir.resolve(INDEX_OBJECT) + " points to " + TenantId.quote(token)
                        + ", not to a version of the index beside it");
            }
            if (token.equals(knownToken)) {
                return Optional.of(new IndexObject(null, token));
            }
            try (FileChannel file = FileChannel.open(dir.resolve(token), StandardOpenOption.READ)) {
                if (file.size() > BlockIndex.HEADER_BYTES + (long) BlockIndex.MAX_BODY_BYTES) {
                    throw new IOException(dir.resolve(token) + " has " + file.size() + " bytes, more than an index may");
                }
                ByteBuffer bytes = ByteBuffer.allocate((int) file.size());
                while (bytes.hasRemaining() && file.read(bytes) >= 0) {
                    // Reads until the buffer is full; a version is never changed once written.
                }
                return Optional.of(new IndexObject(bytes.array(), token));
            } catch (NoSuchFileException e) {
                // Replaced, and the old version removed, since the link was read: read the new one.
            }
        }
        throw new IOException("the index of " + tenant.value() + "/" + signal.dirName() + " changed " + INDEX_READ_ATTEMPTS
                + " times while being read");
    }

    /**
     * Under the index lock, and only if {@code INDEX} still points to {@code expectedToken}: writes the
     * new version into its own file and syncs it, renames a new link over {@code INDEX}, syncs the
     * directory, and removes the old version (and any a crash left behind).
     */
    @Override
    public String writeIndex(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        checkWritable("write the index");
        Path dir = signalDir(tenant, signal);
        ops.createDirectories(dir);
        ReentrantLock local = INDEX_LOCKS.computeIfAbsent(dir.resolve(INDEX_LOCK), p -> new ReentrantLock());
        local.lock();
        try (FileChannel lockFile = FileChannel.open(dir.resolve(INDEX_LOCK), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock held = lockFile.lock()) {
            Path link = dir.resolve(INDEX_OBJECT);
            String current;
            try {
                current = Files.readSymbolicLink(link).toString();
            } catch (NoSuchFileException e) {
                current = null;
            }
            if (!Objects.equals(current, expectedToken)) {
                return null;
            }
            String token = INDEX_FILE_PREFIX + BlockName.newId();
            Path version = dir.resolve(token);
            try (OutputStream out = ops.newOutputStream(version)) {
                out.write(bytes);
            }
            ops.fsyncFile(version);
            Path newLink = dir.resolve(INDEX_FILE_PREFIX + "link-" + BlockName.newId());
            Files.createSymbolicLink(newLink, Path.of(token));
            ops.move(newLink, link);
            ops.fsyncDir(dir);
            removeOtherIndexVersions(dir, token);
            return token;
        } finally {
            local.unlock();
        }
    }

    @Override
    public boolean keepsIndex() {
        return !readOnly;
    }

    /** Removes every version of the index but {@code current}: the one it replaced, and any a crash left. */
    private static void removeOtherIndexVersions(Path dir, String current) {
        try (DirectoryStream<Path> versions = Files.newDirectoryStream(dir, INDEX_FILE_PREFIX + "*")) {
            for (Path version : versions) {
                if (!version.getFileName().toString().equals(current)) {
                    Files.deleteIfExists(version);
                }
            }
        } catch (IOException e) {
            // Only disk space: the next write tries again.
            LOG.warn("could not remove old versions of the index in {}", dir, e);
        }
    }

    private void checkWritable(String what) {
        if (readOnly) {
            throw new UnsupportedOperationException("cannot " + what + ": the store at " + root + " is open read-only");
        }
    }

    private Path signalDir(TenantId tenant, Signal signal) {
        return root.resolve(tenant.value()).resolve(signal.dirName());
    }

    private static boolean hasSignalDir(Path tenantDir) {
        for (Signal signal : Signal.values()) {
            if (Files.isDirectory(tenantDir.resolve(signal.dirName()))) {
                return true;
            }
        }
        return false;
    }

    /** The directories directly under {@code dir}; none when it does not exist. */
    private static List<Path> subdirectories(Path dir) throws IOException {
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, Files::isDirectory)) {
            entries.forEach(dirs::add);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        return dirs;
    }

    /**
     * Removes every {@code .tmp-*} directory under every tenant's signal directories. A directory
     * that cannot be removed is logged and left: it is never read, so it must not keep the process
     * from starting.
     */
    private List<Path> removeStaleTmpDirs() throws IOException {
        List<Path> removed = new ArrayList<>();
        for (TenantId tenant : tenants()) {
            for (Signal signal : Signal.values()) {
                for (Path dir : tmpDirs(tenant, signal)) {
                    try {
                        ops.deleteRecursively(dir);
                        removed.add(dir);
                        LOG.info("removed stale directory {}", dir);
                    } catch (IOException e) {
                        LOG.warn("could not remove stale directory {}", dir, e);
                    }
                }
            }
        }
        return removed;
    }

    /** Files staged in {@code .tmp-<id>/} until {@link #publish} renames the directory. */
    private final class FsPendingBlock extends StagedBlock {

        FsPendingBlock(TenantId tenant, Signal signal, Path staging) {
            super(tenant, signal, staging);
        }

        @Override
        protected OutputStream newFile(Path file) throws IOException {
            return ops.newOutputStream(file);
        }

        /**
         * Syncs every staged file and the staging directory, renames it to the block's name, then syncs
         * the signal, tenant and root directories (the latter two matter for a tenant's first block).
         * A failure before the rename leaves nothing visible, and publish may be retried. A failure
         * after it leaves the whole block visible, as a crash at that point would.
         */
        @Override
        protected void makeVisible(BlockRef ref) throws IOException {
            Path target = blockDir(ref);
            // Linux's rename replaces an empty directory, so an existing name must be refused first.
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                throw alreadyPublished(ref, null);
            }
            List<Path> files;
            try (Stream<Path> entries = Files.list(staging)) {
                files = entries.sorted().toList();
            }
            for (Path file : files) {
                ops.fsyncFile(file);
            }
            ops.fsyncDir(staging);
            try {
                ops.move(staging, target);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                throw alreadyPublished(ref, e);
            }
            madeVisible();
            try {
                for (Path dir = target.getParent(); dir != null && dir.startsWith(root); dir = dir.getParent()) {
                    ops.fsyncDir(dir);
                }
            } catch (IOException e) {
                throw new IOException("block " + ref + " is visible but syncing its directory failed,"
                        + " so it may not survive a crash", e);
            }
        }

        @Override
        protected void discard(boolean published) throws IOException {
            if (!published) {
                ops.deleteRecursively(staging);
            }
        }

        private FileAlreadyExistsException alreadyPublished(BlockRef ref, Exception cause) {
            return StagedBlock.alreadyPublished(ref, blockDir(ref).toString(), "nothing was changed", cause);
        }
    }
}
