package dev.needle.sidecar.cli;

import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyMix;
import dev.needle.sidecar.Sidecar;
import dev.needle.sidecar.TraceIdText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code needle inspect sidecar FILE}: a sidecar's header, verdict, fill, and the answer to given probes.
 * Public so that the {@code inspect} command of module {@code blocks}, which owns the executable, can mount it.
 */
@Command(name = "sidecar", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true,
        description = {"Show a TRACE_IDX, ATTR_IDX or BATCH_ATTR_IDX file, and look keys up in it.",
            "%nPrints every header field, the CRC verdict, the fill, the number of keys the fill implies and the "
                + "false-positive rate it gives. With --probe or --probe-attr, also each key's hashes, bit positions "
                + "and verdict; with --batches N, the record batches of a BATCH_ATTR_IDX that may hold each pair."})
public final class InspectSidecarCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "the sidecar file")
    Path file;

    @Option(names = "--json", description = "print one JSON object instead of a table")
    boolean json;

    @Option(names = "--probe", paramLabel = "HEX", description = "a trace id to look up: 1 to 32 hex digits, shorter "
            + "ids zero-padded on the left as needle query trace pads them (repeatable)")
    List<String> traceProbes = new ArrayList<>();

    @Option(names = "--probe-attr", paramLabel = "KEY=LITERAL",
            description = "an attribute pair to look up, typed like a query literal: key=\"text\", key=200, key=0.5, key=true (repeatable)")
    List<String> attrProbes = new ArrayList<>();

    @Option(names = "--batches", paramLabel = "N", description = "the file is a BATCH_ATTR_IDX of a block of N record "
            + "batches: list which of batches 0..N-1 may hold each --probe-attr pair")
    Integer batches;

    @Override
    public Integer call() throws IOException {
        List<Probe> probes = new ArrayList<>();
        try {
            for (String hex : traceProbes) {
                probes.add(Probe.traceId(hex));
            }
            for (String pair : attrProbes) {
                probes.add(Probe.attribute(AttributeLiteral.parse(pair)));
            }
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("needle inspect sidecar: " + e.getMessage());
            return 2;
        }
        if (batches != null && (batches < 1 || attrProbes.isEmpty() || !traceProbes.isEmpty())) {
            spec.commandLine().getErr().println("needle inspect sidecar: --batches needs a positive N, "
                    + "--probe-attr and no --probe");
            return 2;
        }
        if (!Files.exists(file)) {
            spec.commandLine().getErr().println("needle inspect sidecar: no such file: " + file);
            return 1;
        }

        byte[] bytes = Files.readAllBytes(file);
        Sidecar sidecar = BloomSidecar.decode(bytes);
        Map<String, Object> facts = facts(bytes, sidecar);
        List<Map<String, Object>> answers = probes.stream()
                .map(p -> batches == null ? p.answer(sidecar) : p.batchAnswer(sidecar, batches)).toList();

        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            facts.put("probes", answers);
            out.println(InspectJson.write(facts));
        } else {
            facts.forEach((k, v) -> out.printf("%-22s %s%n", k.replace('_', ' '), v));
            for (Map<String, Object> a : answers) {
                out.println();
                a.forEach((k, v) -> out.printf("  %-20s %s%n", k.replace('_', ' '), v));
            }
        }
        out.flush();
        return 0;
    }

    private Map<String, Object> facts(byte[] bytes, Sidecar sidecar) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("file", file.toString());
        f.put("bytes", bytes.length);
        BloomSidecar.Header h = BloomSidecar.Header.parse(bytes);
        if (h != null) {
            f.put("magic", String.format("0x%08x%s", h.magic(), h.magic() == BloomSidecar.MAGIC ? " (NBLM)" : ""));
            f.put("version", h.version());
            f.put("k", h.k());
            f.put("flags", String.format("0x%02x%s", h.flags(),
                    (h.flags() & BloomSidecar.FLAG_HAS_DOUBLE) != 0 ? " (HAS_DOUBLE)" : ""));
            f.put("pad", h.pad());
            f.put("words", h.wordsField());
            f.put("expected_bytes", h.expectedLength());
            f.put("crc_stored", String.format("0x%08x", h.crc()));
        }
        f.put("verdict", sidecar.isVerified() ? "verified"
                : "failed open: " + sidecar.failOpenReason().orElseThrow().label());
        f.put("detail", sidecar.detail());
        sidecar.bits().ifPresent(bits -> {
            f.put("bits", bits.bits());
            f.put("bits_set", bits.bitCount());
            f.put("fill_ratio", round(bits.fillRatio()));
            f.put("implied_keys", Math.round(bits.impliedKeys()));
            f.put("false_positive_rate", round(bits.falsePositiveRate()));
        });
        return f;
    }

    private static double round(double v) {
        return Math.round(v * 1e6) / 1e6;
    }

    /** One key to look up, with its two halves. */
    private record Probe(String kind, String key, long lo, long hi, AttributeLiteral literal) {

        static Probe traceId(String hex) {
            byte[] id = TraceIdText.parse(hex).orElseThrow(() -> new IllegalArgumentException(
                    "--probe needs a trace id of 1 to 32 hex digits, got '" + hex + "'"));
            return new Probe("trace_id", HexFormat.of().formatHex(id), KeyMix.traceIdLo(id, 0), KeyMix.traceIdHi(id, 0),
                    null);
        }

        static Probe attribute(AttributeLiteral literal) {
            AttributeHash h = literal.hash();
            return new Probe("attribute", literal.key() + "=" + literal.literal() + " (type " + literal.type() + ")",
                    h.lo(), h.hi(), literal);
        }

        Map<String, Object> answer(Sidecar sidecar) {
            long h1 = KeyMix.h1(lo, hi);
            long h2 = KeyMix.h2(lo, hi);
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("probe", kind + " " + key);
            a.put("lo", String.format("0x%016x", lo));
            a.put("hi", String.format("0x%016x", hi));
            a.put("h1", String.format("0x%016x", h1));
            a.put("h2", String.format("0x%016x", h2));
            if (sidecar.bits().isEmpty()) {
                a.put("verdict", "maybe (failed open: " + sidecar.failOpenReason().orElseThrow().label() + ")");
                return a;
            }
            BloomBits bits = sidecar.bits().get();
            List<String> positions = new ArrayList<>();
            for (int i = 0; i < bits.k(); i++) {
                int p = BloomBits.probe(h1, h2, i, bits.bits());
                positions.add(p + (bits.isSet(p) ? ":1" : ":0"));
            }
            a.put("positions", String.join(" ", positions));
            boolean fractional = literal != null && literal.type() == 'd';
            if (fractional && !sidecar.mayHoldDoubles()) {
                a.put("verdict", "absent (HAS_DOUBLE is clear: the block holds no double)");
            } else {
                a.put("verdict", sidecar.mayContain(h1, h2) ? "maybe" : "absent");
            }
            return a;
        }

        /** The batches of 0..batches-1 whose BATCH_ATTR_IDX key of this pair may be present. */
        Map<String, Object> batchAnswer(Sidecar sidecar, int batches) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("probe", kind + " " + key);
            if (sidecar.bits().isEmpty()) {
                a.put("batches", "every one (failed open: " + sidecar.failOpenReason().orElseThrow().label() + ")");
                return a;
            }
            List<Integer> maybe = new ArrayList<>();
            if (literal.type() != 'd' || sidecar.mayHoldDoubles()) {
                for (int b = 0; b < batches; b++) {
                    if (sidecar.mayContain(new AttributeHash(lo, hi), b)) {
                        maybe.add(b);
                    }
                }
            }
            a.put("batches", maybe.isEmpty() ? "none" : maybe.toString());
            return a;
        }
    }
}
