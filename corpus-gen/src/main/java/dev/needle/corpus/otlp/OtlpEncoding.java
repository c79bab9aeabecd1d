package dev.needle.corpus.otlp;

import java.util.Locale;

/** The two OTLP/HTTP encodings a request is written in: protobuf and OTLP/JSON. */
public enum OtlpEncoding {

    PROTOBUF("application/x-protobuf", "binpb"),
    JSON("application/json", "json");

    private final String mediaType;
    private final String fileExtension;

    OtlpEncoding(String mediaType, String fileExtension) {
        this.mediaType = mediaType;
        this.fileExtension = fileExtension;
    }

    /** The request's Content-Type. */
    public String mediaType() {
        return mediaType;
    }

    /** The extension of a request file in this encoding, without the dot: {@code binpb} (the protobuf tools' name) or {@code json}. */
    public String fileExtension() {
        return fileExtension;
    }

    /** The lower-case name, as a command line or a report spells it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The encoding a Content-Type names, ignoring case and parameters; null when it names neither. */
    static OtlpEncoding ofContentType(String contentType) {
        if (contentType == null) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
        for (OtlpEncoding e : values()) {
            if (e.mediaType.equals(type)) {
                return e;
            }
        }
        return null;
    }
}
