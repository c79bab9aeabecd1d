package dev.needle.query.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.ExplainFormat;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Runs {@code needle query} in-process and takes its output apart. */
final class Cli {

    private static final JsonFactory JSON = new JsonFactory();
    private static final Pattern OPENED = Pattern.compile("(\\d+) opened, ");

    private Cli() {
    }

    /** What one run printed and how it exited. */
    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = QueryCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** The value of a top-level field of a JSON object, as JSON bytes of its own. */
    static byte[] field(String json, String name) throws IOException {
        try (JsonParser p = JSON.createParser(json)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (field.equals(name)) {
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    try (JsonGenerator g = JSON.createGenerator(bytes)) {
                        g.copyCurrentStructure(p);
                    }
                    return bytes.toByteArray();
                }
                p.skipChildren();
            }
        }
        throw new AssertionError("no field " + name + " in " + json);
    }

    static String text(byte[] json) {
        return new String(json, StandardCharsets.UTF_8);
    }

    static List<SpanRecord> spans(String json, String field) throws IOException {
        Decoded<SpanRecord> d = OtlpJson.decodeSpans(new ByteArrayInputStream(field(json, field)));
        if (d.rejected() != 0) {
            throw new AssertionError(d.message());
        }
        return d.records();
    }

    static List<LogRecord> logs(String json, String field) throws IOException {
        Decoded<LogRecord> d = OtlpJson.decodeLogs(new ByteArrayInputStream(field(json, field)));
        if (d.rejected() != 0) {
            throw new AssertionError(d.message());
        }
        return d.records();
    }

    static List<Explain> plans(String json) throws IOException {
        return ExplainFormat.read(field(json, "explain"));
    }

    /** The "N opened" of the first EXPLAIN totals line in a human output. */
    static int opened(String out) {
        Matcher m = OPENED.matcher(out);
        if (!m.find()) {
            throw new AssertionError("no EXPLAIN totals line in:\n" + out);
        }
        return Integer.parseInt(m.group(1));
    }
}
