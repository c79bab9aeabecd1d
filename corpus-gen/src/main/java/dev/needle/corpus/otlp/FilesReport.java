package dev.needle.corpus.otlp;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.cli.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What one {@link OtlpFiles} run wrote.
 *
 * @param signal         {@code spans} or {@code logs}
 * @param directory      where the files are: {@code <dir>/traces} or {@code <dir>/logs}
 * @param encoding       the files' encoding
 * @param files          request files written, numbered from {@code 000000}
 * @param records        records in them
 * @param bytes          bytes in them
 * @param elapsedSeconds wall time, encoding and writing
 */
public record FilesReport(String signal, Path directory, OtlpEncoding encoding, long files, long records, long bytes,
                          double elapsedSeconds) {

    /** Records written per second of wall time. */
    public double recordsPerSecond() {
        return elapsedSeconds > 0 ? records / elapsedSeconds : 0;
    }

    /** Writes this report as one JSON object. */
    public void write(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("signal", signal);
        g.writeStringField("directory", directory.toString());
        g.writeStringField("encoding", encoding.label());
        g.writeNumberField("files", files);
        g.writeNumberField("records", records);
        g.writeNumberField("bytes", bytes);
        g.writeNumberField("elapsedSeconds", elapsedSeconds);
        g.writeNumberField("recordsPerSecond", recordsPerSecond());
        g.writeEndObject();
    }

    /** One line for a person. */
    public String toText() {
        return String.format(Locale.ROOT, "%s: %,d %s in %,d %s request %s (%s) in %s, %.2f s: %,.0f records/s%n",
                signal, records, Units.plural(records, "record"), files, encoding.label(), Units.plural(files, "file"), SendReport.bytes(bytes), directory, elapsedSeconds,
                recordsPerSecond());
    }
}
