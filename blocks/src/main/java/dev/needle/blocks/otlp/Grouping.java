package dev.needle.blocks.otlp;

import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Records nested as OTLP sends them: by resource (its schema url is part of it), then by scope.
 * Groups come in order of first appearance, and records keep their order within a scope.
 */
final class Grouping {

    private Grouping() {
    }

    static <T> Map<Resource, Map<Scope, List<T>>> group(List<T> records, Function<T, Resource> resourceOf,
                                                        Function<T, Scope> scopeOf) {
        Map<Resource, Map<Scope, List<T>>> groups = new LinkedHashMap<>();
        // Neighbours usually share the very same instances; only a change pays for hashing a resource.
        Resource lastResource = null;
        Scope lastScope = null;
        Map<Scope, List<T>> scopes = null;
        List<T> list = null;
        for (T record : records) {
            Resource resource = resourceOf.apply(record);
            if (resource != lastResource) {
                scopes = groups.computeIfAbsent(resource, r -> new LinkedHashMap<>());
                lastResource = resource;
                lastScope = null;
            }
            Scope scope = scopeOf.apply(record);
            if (scope != lastScope) {
                list = scopes.computeIfAbsent(scope, s -> new ArrayList<>());
                lastScope = scope;
            }
            list.add(record);
        }
        return groups;
    }
}
