package dev.needle.blocks;

import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * The files of a published block and the limits of its data.arrow: the one home of what the block
 * writer writes and the block reader checks, so that neither learns it from the other.
 */
public final class BlockLayout {

    /** Name of the Arrow IPC file in a block. */
    public static final String DATA = "data.arrow";
    /** Name of the block's metadata file. */
    public static final String META = "meta.json";
    /** The largest meta.json a reader reads: a block's holds a few hundred bytes per batch. */
    public static final long MAX_META_BYTES = 64L << 20;
    /** The most rows in one record batch. */
    public static final int MAX_BATCH_ROWS = 8192;
    /** The one codec a compressed record batch may name, with Arrow's BUFFER method (ZSTD, level 3). */
    public static final CompressionUtil.CodecType CODEC = CompressionUtil.CodecType.ZSTD;
    /** Where {@link #CODEC} comes from: arrow-compression, which brings zstd-jni and its native library. */
    public static final CompressionCodec.Factory CODECS = CommonsCompressionFactory.INSTANCE;

    private BlockLayout() {
    }
}
