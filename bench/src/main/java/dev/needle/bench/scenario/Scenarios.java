package dev.needle.bench.scenario;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.corpus.CorpusSpec;
import dev.needle.corpus.Manifest;
import dev.needle.query.engine.TimeRange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The scenarios of a corpus, chosen from its manifest: a trace by id present and absent for every
 * id family, attribute values present (the rarest, a needle) and absent on spans and logs, the
 * same bounded in time, and AND / OR combinations.
 */
public final class Scenarios {

    private Scenarios() {
    }

    /** Every scenario the manifest supports. */
    public static List<Scenario> of(Manifest manifest) {
        List<Scenario> out = new ArrayList<>();
        for (Map.Entry<String, List<Manifest.PresentTrace>> family : manifest.presentTraceIds().entrySet()) {
            List<Manifest.PresentTrace> present = family.getValue();
            if (!present.isEmpty()) {
                Manifest.PresentTrace probe = present.get(present.size() / 2);
                out.add(new Scenario("trace present (" + family.getKey() + ")", Scenario.Kind.TRACE,
                        Bytes.fromHex(probe.id()), null, TimeRange.ALL, true, family.getKey().equals("random"), null));
            }
            List<String> absent = manifest.absentTraceIds().getOrDefault(family.getKey(), List.of());
            if (!absent.isEmpty()) {
                out.add(new Scenario("trace absent (" + family.getKey() + ")", Scenario.Kind.TRACE,
                        Bytes.fromHex(absent.get(absent.size() / 2)), null, TimeRange.ALL, false, false, null));
            }
        }
        CorpusSpec spec = manifest.spec();
        long start = spec.startUnixNano();
        long window = spec.windowNanos();
        TimeRange lastQuarter = new TimeRange(start + window * 3 / 4, start + window);
        for (String signal : List.of("spans", "logs")) {
            Scenario.Kind kind = signal.equals("spans") ? Scenario.Kind.SPANS : Scenario.Kind.LOGS;
            String scope = signal.equals("spans") ? "span" : "log";
            Manifest.AttributeProbe rare = rarestUser(manifest, signal);
            Manifest.AttributeProbe common = commonest(manifest, p -> p.signal().equals(signal) && p.key().equals("http.route"));
            Manifest.AttributeProbe absentUser = absent(manifest, signal, scope, "user.id", 0);
            Manifest.AttributeProbe otherAbsentUser = absent(manifest, signal, scope, "user.id", 1);
            Manifest.AttributeProbe absentPod = absent(manifest, signal, "resource", "k8s.pod.name", 0);
            if (rare != null) {
                out.add(equality(signal + ": rare " + rare.key() + " present", kind, rare, TimeRange.ALL, true, false));
            }
            if (absentUser != null) {
                out.add(equality(signal + ": " + absentUser.key() + " absent", kind, absentUser, TimeRange.ALL, false, false));
                out.add(equality(signal + ": " + absentUser.key() + " absent, last quarter", kind, absentUser, lastQuarter,
                        false, false));
            }
            if (absentPod != null) {
                out.add(equality(signal + ": k8s.pod.name absent", kind, absentPod, TimeRange.ALL, false,
                        signal.equals("logs")));
            }
            if (common != null) {
                out.add(equality(signal + ": common http.route, last quarter", kind, common, lastQuarter, true, false));
            }
            if (common != null && absentUser != null) {
                out.add(search(signal + ": route AND absent user", kind, condition(common) + " && " + condition(absentUser),
                        TimeRange.ALL, false, false));
            }
            if (absentUser != null && otherAbsentUser != null) {
                out.add(search(signal + ": absent user OR absent user", kind,
                        condition(absentUser) + " || " + condition(otherAbsentUser), TimeRange.ALL, false, false));
            }
            if (rare != null && absentUser != null) {
                out.add(search(signal + ": rare user OR absent user", kind, condition(rare) + " || " + condition(absentUser),
                        TimeRange.ALL, true, false));
            }
        }
        return out;
    }

    private static Scenario search(String name, Scenario.Kind kind, String conditions, TimeRange range, boolean found,
                                   boolean headline) {
        return new Scenario(name, kind, null, "{ " + conditions + " }", range, found, headline, null);
    }

    private static Scenario equality(String name, Scenario.Kind kind, Manifest.AttributeProbe probe, TimeRange range,
                                     boolean found, boolean headline) {
        return new Scenario(name, kind, null, "{ " + condition(probe) + " }", range, found, headline, probe);
    }

    /** The condition {@code scope.key = literal} that finds records carrying the probe's value. */
    public static String condition(Manifest.AttributeProbe p) {
        return p.scope() + "." + p.key() + " = " + literal(p.value());
    }

    static String literal(AnyValue value) {
        if (value instanceof AnyValue.Str s) {
            return "\"" + s.value().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        } else if (value instanceof AnyValue.Int i) {
            return Long.toString(i.value());
        } else if (value instanceof AnyValue.Dbl d) {
            return Double.toString(d.value());
        } else if (value instanceof AnyValue.Bool b) {
            return Boolean.toString(b.value());
        }
        throw new IllegalArgumentException("not a scalar: " + value);
    }

    /** The rarest present {@code user.id} of {@code signal}'s own attributes (a needle), or null. */
    static Manifest.AttributeProbe rarestUser(Manifest manifest, String signal) {
        String scope = signal.equals("spans") ? "span" : "log";
        return rarest(manifest, p -> p.signal().equals(signal) && p.scope().equals(scope) && p.key().equals("user.id"));
    }

    private static Manifest.AttributeProbe rarest(Manifest manifest, Predicate<Manifest.AttributeProbe> which) {
        return manifest.presentAttributes().stream().filter(which)
                .min(Comparator.comparingLong(Manifest.AttributeProbe::count)).orElse(null);
    }

    private static Manifest.AttributeProbe commonest(Manifest manifest, Predicate<Manifest.AttributeProbe> which) {
        return manifest.presentAttributes().stream().filter(which)
                .max(Comparator.comparingLong(Manifest.AttributeProbe::count)).orElse(null);
    }

    private static Manifest.AttributeProbe absent(Manifest manifest, String signal, String scope, String key, int nth) {
        List<Manifest.AttributeProbe> matches = manifest.absentAttributes().stream()
                .filter(p -> p.signal().equals(signal) && p.scope().equals(scope) && p.key().equals(key)).toList();
        return matches.size() > nth ? matches.get(nth) : null;
    }
}
