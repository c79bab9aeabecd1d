package dev.needle.blocks.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.CorruptMetaException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the inspect subcommands share: a report is an ordered map of scalars and lists, printed
 * for people as aligned tables or for machines as one JSON document, so that both always say the
 * same; and the facts of a block's files that both subcommands read.
 */
final class Report {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private Report() {
    }

    /** A part of a whole: a fraction in JSON, a percentage for people. */
    record Share(long part, long whole) {
        double fraction() {
            return whole == 0 ? 0 : Math.round((double) part / whole * 1e6) / 1e6;
        }

        @Override
        public String toString() {
            return String.format("%.2f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
        }
    }

    /** A block's meta.json, or null and why not. */
    record MetaRead(BlockMeta meta, String problem) {
    }

    /** Reads {@code blockDir}/meta.json on its own, without data.arrow; never throws. */
    static MetaRead readMeta(Path blockDir) {
        Path file = blockDir.resolve(BlockLayout.META);
        try {
            if (Files.size(file) > BlockLayout.MAX_META_BYTES) {
                return new MetaRead(null, "meta.json is larger than " + BlockLayout.MAX_META_BYTES + " bytes");
            }
            return new MetaRead(BlockMetaJson.read(Files.readAllBytes(file)), null);
        } catch (NoSuchFileException e) {
            return new MetaRead(null, "no meta.json");
        } catch (CorruptMetaException e) {
            return new MetaRead(null, "corrupt meta.json: " + e.getMessage());
        } catch (IOException e) {
            return new MetaRead(null, "cannot read meta.json: " + e.getMessage());
        }
    }

    /**
     * A derived file of a block (TAGS, COUNTS) as read for a check: its bytes, or none when it is missing, or why
     * it could not be read.
     */
    record DerivedRead(byte[] bytes, long size, String problem) {
    }

    /** Reads a derived file of at most {@code maxBytes} ({@code what} names the file in a problem); never throws. */
    static DerivedRead readDerived(Path file, long maxBytes, String what) {
        try {
            long size = Files.size(file);
            if (size > maxBytes) {
                return new DerivedRead(null, size, size + " bytes, more than a " + what + " file may hold");
            }
            return new DerivedRead(Files.readAllBytes(file), size, null);
        } catch (NoSuchFileException e) {
            return new DerivedRead(null, 0, null);
        } catch (IOException e) {
            return new DerivedRead(null, 0, "unreadable: " + e.getMessage());
        }
    }

    /** The size of {@code file}, 0 when it does not exist. */
    static long size(Path file) throws IOException {
        try {
            return Files.size(file);
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    /** Unix nanoseconds as ISO-8601 UTC, to the nanosecond. */
    static String iso(long unixNano) {
        return Instant.ofEpochSecond(Math.floorDiv(unixNano, 1_000_000_000L), Math.floorMod(unixNano, 1_000_000_000L))
                .toString();
    }

    /** Unix milliseconds as ISO-8601 UTC. */
    static String isoMilli(long unixMilli) {
        return Instant.ofEpochMilli(unixMilli).toString();
    }

    /**
     * Prints a report for people: its non-null scalars as a two-column table, then each non-empty
     * list, a list of maps as a table whose header is the first map's keys, any other list one item
     * a line under its name. Keys print with spaces for underscores; a null cell prints as "-".
     */
    static void print(Map<String, Object> report, PrintWriter out) {
        Table facts = new Table();
        report.forEach((key, value) -> {
            if (value != null && !(value instanceof List)) {
                facts.row(label(key), value);
            }
        });
        facts.print(out);
        report.forEach((key, value) -> {
            if (value instanceof List<?> list && !list.isEmpty()) {
                out.println();
                if (list.get(0) instanceof Map<?, ?> first) {
                    Table table = new Table(first.keySet().stream().map(k -> label(k.toString())).toArray());
                    for (Object row : list) {
                        table.row(((Map<?, ?>) row).values().stream().map(v -> v == null ? "-" : v).toArray());
                    }
                    table.print(out);
                } else {
                    out.println(label(key) + ":");
                    list.forEach(item -> out.println("  " + item));
                }
            }
        });
        out.flush();
    }

    /** The report as one line of JSON. */
    static String json(Object report) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(text)) {
            write(g, report);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a generator over a StringWriter does no I/O
        }
        return text.toString();
    }

    private static void write(JsonGenerator g, Object value) throws IOException {
        if (value == null) {
            g.writeNull();
        } else if (value instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(e.getKey().toString());
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : list) {
                write(g, item);
            }
            g.writeEndArray();
        } else if (value instanceof Integer || value instanceof Long) {
            g.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double d) {
            g.writeNumber(d);
        } else if (value instanceof Share s) {
            g.writeNumber(s.fraction());
        } else if (value instanceof Boolean b) {
            g.writeBoolean(b);
        } else {
            g.writeString(value.toString());
        }
    }

    private static String label(String key) {
        return key.replace('_', ' ');
    }

    /** Text columns padded to their widest cell, two spaces apart. */
    private static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        Table(Object... header) {
            if (header.length > 0) {
                row(header);
            }
        }

        void row(Object... cells) {
            String[] row = new String[cells.length];
            for (int i = 0; i < cells.length; i++) {
                row[i] = String.valueOf(cells[i]);
            }
            rows.add(row);
        }

        void print(PrintWriter out) {
            int[] width = new int[rows.stream().mapToInt(r -> r.length).max().orElse(0)];
            for (String[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    width[i] = Math.max(width[i], row[i].length());
                }
            }
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < row.length; i++) {
                    line.append(row[i]).append(" ".repeat(width[i] - row[i].length() + 2));
                }
                out.println(line.toString().stripTrailing());
            }
        }
    }
}
