package dev.needle.blocks.json;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The jackson-databind settings that needle's own JSON documents share (EXPLAIN, the corpus
 * manifest, bench reports): a value must have the JSON type its field has, and a field must not
 * appear twice. Fields a reader does not know are skipped, so that a later writer may add some.
 * OTLP JSON and meta.json are not among these documents: each has its own streaming codec.
 */
public final class StrictJson {

    private StrictJson() {
    }

    /**
     * A mapper builder that refuses duplicate fields, strings or booleans where numbers belong
     * (and the reverse), decimals where integers belong, numbers where enum names belong, and
     * anything after the document; unknown fields are skipped.
     */
    public static JsonMapper.Builder builder() {
        return JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /**
     * {@link #builder()} for a document whose every field is required and never null, but those
     * a record component marks {@code @JsonSetter(nulls = Nulls.SET)}; a missing field is read
     * as a null one, so both fail alike.
     */
    public static JsonMapper.Builder requiringEveryField() {
        return builder().defaultSetterInfo(JsonSetter.Value.construct(Nulls.FAIL, Nulls.FAIL));
    }

    /** The field a mapping error is about, as a person writes it: {@code rows}, {@code batches[1].index}. */
    public static String where(JsonMappingException e) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                out.append(out.length() == 0 ? "" : ".").append(r.getFieldName());
            } else {
                out.append('[').append(r.getIndex()).append(']');
            }
        }
        return out.toString();
    }
}
