package dev.needle.bench.scenario;

import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import dev.needle.corpus.Manifest;
import dev.needle.corpus.output.BlockOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * The corpora the benchmark runs on: {@code smoke}, small enough for CI, and {@code seed}, the
 * size of the seed store's published table (25M spans and 25M logs in blocks of 300,000 rows).
 */
public enum BenchCorpus {
    /** 100,000 spans and 100,000 logs in blocks of 10,000 rows: ten blocks of each. */
    SMOKE(CorpusSpec.defaults(100_000, 100_000).withBlockRows(10_000).withProbes(10).withCardinality(20, 60, 100_000)),
    /** 25M spans and 25M logs in blocks of 300,000 rows, as the seed store's table was measured on. */
    SEED(CorpusSpec.defaults(25_000_000, 25_000_000));

    private final CorpusSpec spec;

    BenchCorpus(CorpusSpec spec) {
        this.spec = spec;
    }

    /** What the corpus is made from. */
    public CorpusSpec spec() {
        return spec;
    }

    /** The corpus's name on the command line and in result files. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The corpus's manifest, generating the corpus into {@code data} first unless it is already
     * there; a directory that holds anything else is refused rather than mixed with.
     */
    public Manifest ensure(Path data, LongConsumer progress) throws IOException, InterruptedException {
        Path file = data.resolve(Manifest.FILE);
        if (Files.exists(file)) {
            Manifest manifest = Manifest.readFrom(data);
            if (manifest.spec().equals(spec) && manifest.appended().isEmpty()) {
                return manifest;
            }
            throw new IOException(data + " holds another corpus (" + manifest.spec()
                    + (manifest.appended().isEmpty() ? "" : " and " + manifest.appended().size() + " runs appended to it")
                    + "); remove it or choose another --data");
        }
        if (Files.isDirectory(data)) {
            try (Stream<Path> entries = Files.list(data)) {
                if (entries.findAny().isPresent()) {
                    throw new IOException(data + " is not empty and has no " + Manifest.FILE + "; choose an empty or new --data");
                }
            }
        }
        Corpus corpus = new Corpus(spec);
        BlockOutput.Result result = BlockOutput.write(corpus, data, TenantId.DEFAULT,
                Runtime.getRuntime().availableProcessors(), BlockWriter.Options.DEFAULT, progress);
        Manifest manifest = corpus.manifest(result.spans(), result.logs());
        manifest.writeTo(data);
        return manifest;
    }
}
