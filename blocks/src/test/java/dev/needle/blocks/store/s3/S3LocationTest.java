package dev.needle.blocks.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import org.junit.jupiter.api.Test;

class S3LocationTest {

    @Test
    void parse_bucketAndPrefix_withoutSlashesAtTheEnds() {
        URI endpoint = URI.create("http://127.0.0.1:9000");
        assertEquals(new S3Location("logs", "needle/prod", endpoint, true),
                S3Location.parse("s3://logs/needle/prod/", endpoint, true));
        assertEquals(new S3Location("my_bucket.v2", "", null, false), S3Location.parse("s3://my_bucket.v2", null, false));
        assertEquals(new S3Location("b", "", null, false), S3Location.parse("s3://b/", null, false));
    }

    @Test
    void parse_notAnS3Uri_isRefusedWithTheForm() {
        for (String bad : new String[] {"logs/needle", "gs://logs/needle", "s3:///needle", "s3://logs/a?b=c", "s3://lo gs"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> S3Location.parse(bad, null, false), bad);
            assertEquals("a store in a bucket is s3://BUCKET[/PREFIX], got '" + bad + "'", e.getMessage());
        }
    }
}
