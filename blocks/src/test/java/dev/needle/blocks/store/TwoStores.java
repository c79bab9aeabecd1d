package dev.needle.blocks.store;

import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Two store instances over one place, as two processes open it: one local directory, or one bucket of an S3Proxy. */
public final class TwoStores implements AutoCloseable {

    private static int buckets;

    private final List<BlockStore> stores;

    private TwoStores(List<BlockStore> stores) {
        this.stores = stores;
    }

    /** Two stores over {@code dir}/data ({@code kind} "fs") or over a new bucket of {@code server} ("s3"). */
    public static synchronized TwoStores open(String kind, Path dir, S3ProxyServer server) throws IOException {
        List<BlockStore> stores = new ArrayList<>();
        if (kind.equals("fs")) {
            // Both opened before anything is written: opening removes the other's staging directories.
            stores.add(new FsBlockStore(dir.resolve("data")));
            stores.add(new FsBlockStore(dir.resolve("data")));
        } else {
            String bucket = server.createBucket("two-stores-" + ++buckets);
            for (int i = 0; i < 2; i++) {
                stores.add(new S3BlockStore(server.client(), bucket, "p", dir.resolve("staging" + i), Clock.systemUTC(),
                        Duration.ofHours(1)));
            }
        }
        return new TwoStores(stores);
    }

    /** The first or second store. */
    public BlockStore get(int i) {
        return stores.get(i);
    }

    @Override
    public void close() {
        for (BlockStore s : stores) {
            if (s instanceof S3BlockStore s3) {
                s3.close();
            }
        }
    }
}
