package dev.needle.ingest.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Bodies read into kept arrays: whole, whatever length was announced, and the arrays kept within their bound. */
final class BodyBuffersTest {

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        return b;
    }

    /** A stream that hands out at most {@code chunk} bytes a read, as a network body does. */
    private static InputStream chunked(byte[] bytes, int chunk) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    private static byte[] bytesOf(BodyBuffers.Body body) {
        return Arrays.copyOf(body.array(), body.length());
    }

    @Test
    void read_anyAnnouncedLength_readsTheWholeBody() throws IOException {
        BodyBuffers buffers = new BodyBuffers(1 << 20);
        for (int n : new int[] {0, 1, 1000, 65_536, 65_537, 300_000}) {
            byte[] sent = random(n, n);
            // Told the truth, told nothing, told too little, told too much: the stream's end decides.
            for (long announced : new long[] {n, -1, n / 2, n + 100L}) {
                BodyBuffers.Body body = buffers.read(chunked(sent, 777), announced);
                assertArrayEquals(sent, bytesOf(body), n + " bytes announced as " + announced);
                buffers.give(body.array());
            }
        }
    }

    @Test
    void give_thenRead_reusesTheArray_overwritingWhatItHeld() throws IOException {
        BodyBuffers buffers = new BodyBuffers(1 << 20);
        BodyBuffers.Body first = buffers.read(new ByteArrayInputStream(random(5000, 1)), 5000);
        buffers.give(first.array());
        byte[] sent = random(3000, 2);
        BodyBuffers.Body second = buffers.read(new ByteArrayInputStream(sent), 3000);
        assertSame(first.array(), second.array());
        assertArrayEquals(sent, bytesOf(second));
        BodyBuffers.Body third = buffers.read(new ByteArrayInputStream(sent), 3000);
        assertNotSame(second.array(), third.array(), "an array not given back is not handed out again");
    }

    @Test
    void give_pastTheBound_keepsNothingMore() throws IOException {
        BodyBuffers buffers = new BodyBuffers(10_000);
        BodyBuffers.Body a = buffers.read(new ByteArrayInputStream(random(6000, 1)), 6000);
        BodyBuffers.Body b = buffers.read(new ByteArrayInputStream(random(6000, 2)), 6000);
        buffers.give(a.array());
        buffers.give(b.array());
        assertSame(a.array(), buffers.read(new ByteArrayInputStream(new byte[10]), 10).array(), "the one within the bound");
        assertNotSame(b.array(), buffers.read(new ByteArrayInputStream(new byte[10]), 10).array(), "the one past it was dropped");
    }

    @Test
    void read_failing_givesTheArrayBack() throws IOException {
        BodyBuffers buffers = new BodyBuffers(1 << 20);
        BodyBuffers.Body kept = buffers.read(new ByteArrayInputStream(new byte[100]), 100);
        buffers.give(kept.array());
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("client went away");
            }
        };
        assertEquals("client went away", assertThrows(IOException.class, () -> buffers.read(failing, 100)).getMessage());
        assertSame(kept.array(), buffers.read(new ByteArrayInputStream(new byte[100]), 100).array());
    }
}
