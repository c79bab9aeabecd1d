package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import java.util.List;
import java.util.function.IntFunction;

/**
 * One generated attribute key whose values are drawn by index, so that a corpus can count how many
 * records carry each value and can name values it never draws (its {@link #absent()} values, which
 * sit among the drawn ones in the value's order, so that no min/max statistic can rule them out).
 */
final class ProbedAttribute {

    /** Where the attribute lives, as the manifest and ATTR_IDX name it: resource, span or log. */
    final String scope;
    final String key;
    /** The manifest's type name: string, int, double or bool. */
    final String type;
    /** How many distinct values are drawn: indices 0 ≤ i < size. */
    final int size;
    /** The attribute's place among its signal's attributes: where its counts are kept. */
    final int slot;
    private final KeyValue[] cached;
    private final IntFunction<AnyValue> render;
    private final List<AnyValue> absent;

    private ProbedAttribute(String scope, String key, int size, int slot, KeyValue[] cached,
                            IntFunction<AnyValue> render, List<AnyValue> absent) {
        this.scope = scope;
        this.key = key;
        this.type = typeOf(render.apply(0));
        this.size = size;
        this.slot = slot;
        this.cached = cached;
        this.render = render;
        this.absent = List.copyOf(absent);
    }

    /** Few values, each built once and shared by every record that draws it. */
    static ProbedAttribute of(String scope, String key, List<AnyValue> values, List<AnyValue> absent) {
        KeyValue[] cached = new KeyValue[values.size()];
        for (int i = 0; i < cached.length; i++) {
            cached[i] = new KeyValue(key, values.get(i));
        }
        return new ProbedAttribute(scope, key, values.size(), -1, cached, values::get, absent);
    }

    /** Many values, rendered when drawn (a million shared values would hold a hundred megabytes). */
    static ProbedAttribute rendered(String scope, String key, int size, IntFunction<AnyValue> render, List<AnyValue> absent) {
        return new ProbedAttribute(scope, key, size, -1, null, render, absent);
    }

    /** This attribute at place {@code slot} among its signal's. */
    ProbedAttribute atSlot(int slot) {
        return new ProbedAttribute(scope, key, size, slot, cached, render, absent);
    }

    /** The attribute with value number {@code i}. */
    KeyValue kv(int i) {
        return cached != null ? cached[i] : new KeyValue(key, render.apply(i));
    }

    /** Value number {@code i}. */
    AnyValue value(int i) {
        return cached != null ? cached[i].value() : render.apply(i);
    }

    /** Values of this key that no record carries. */
    List<AnyValue> absent() {
        return absent;
    }

    private static String typeOf(AnyValue value) {
        if (value instanceof AnyValue.Str) {
            return "string";
        } else if (value instanceof AnyValue.Int) {
            return "int";
        } else if (value instanceof AnyValue.Dbl) {
            return "double";
        } else if (value instanceof AnyValue.Bool) {
            return "bool";
        }
        throw new IllegalArgumentException("not a scalar: " + value);
    }
}
