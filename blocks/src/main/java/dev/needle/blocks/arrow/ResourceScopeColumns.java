package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The resource and scope columns that spans and logs share. A batch holds each distinct resource
 * (and scope) once: {@code resource_row} is the row of the batch where this row's resource is
 * written in full, and the resource columns of every other row are empty. Most batches hold a
 * handful of services, so this costs a few bytes a row instead of a copy of every resource
 * attribute, and a scan of resource attributes reads each distinct resource once.
 */
final class ResourceScopeColumns {

    static final String RESOURCE_ROW = "resource_row";
    static final String RESOURCE_ATTRIBUTES = "resource_attributes";
    static final String RESOURCE_DROPPED = "resource_dropped_attributes_count";
    static final String RESOURCE_SCHEMA_URL = "resource_schema_url";
    static final String SCOPE_ROW = "scope_row";
    static final String SCOPE_NAME = "scope_name";
    static final String SCOPE_VERSION = "scope_version";
    static final String SCOPE_ATTRIBUTES = "scope_attributes";
    static final String SCOPE_DROPPED = "scope_dropped_attributes_count";
    static final String SCOPE_SCHEMA_URL = "scope_schema_url";

    static final List<Field> FIELDS = List.of(
            Vectors.int32(RESOURCE_ROW),
            AttributeColumn.field(RESOURCE_ATTRIBUTES),
            Vectors.int32(RESOURCE_DROPPED),
            Vectors.nullableUtf8(RESOURCE_SCHEMA_URL),
            Vectors.int32(SCOPE_ROW),
            Vectors.nullableUtf8(SCOPE_NAME),
            Vectors.nullableUtf8(SCOPE_VERSION),
            AttributeColumn.field(SCOPE_ATTRIBUTES),
            Vectors.int32(SCOPE_DROPPED),
            Vectors.nullableUtf8(SCOPE_SCHEMA_URL));

    private final IntVector resourceRow;
    private final AttributeColumn resourceAttributes;
    private final IntVector resourceDropped;
    private final VarCharVector resourceSchemaUrl;
    private final IntVector scopeRow;
    private final VarCharVector scopeName;
    private final VarCharVector scopeVersion;
    private final AttributeColumn scopeAttributes;
    private final IntVector scopeDropped;
    private final VarCharVector scopeSchemaUrl;
    /** Writing: the row where each (shared) resource and scope of the current batch is written in full. */
    private final Map<Resource, Integer> resourceRows = new IdentityHashMap<>();
    private final Map<Scope, Integer> scopeRows = new IdentityHashMap<>();
    /** Reading: the records decoded so far, by the row that holds them. */
    private final Map<Integer, Resource> resources = new HashMap<>();
    private final Map<Integer, Scope> scopes = new HashMap<>();

    ResourceScopeColumns(VectorSchemaRoot root) {
        resourceRow = Vectors.vector(root, RESOURCE_ROW);
        resourceAttributes = new AttributeColumn(root.getVector(RESOURCE_ATTRIBUTES));
        resourceDropped = Vectors.vector(root, RESOURCE_DROPPED);
        resourceSchemaUrl = Vectors.vector(root, RESOURCE_SCHEMA_URL);
        scopeRow = Vectors.vector(root, SCOPE_ROW);
        scopeName = Vectors.vector(root, SCOPE_NAME);
        scopeVersion = Vectors.vector(root, SCOPE_VERSION);
        scopeAttributes = new AttributeColumn(root.getVector(SCOPE_ATTRIBUTES));
        scopeDropped = Vectors.vector(root, SCOPE_DROPPED);
        scopeSchemaUrl = Vectors.vector(root, SCOPE_SCHEMA_URL);
    }

    /**
     * Writes row {@code row}'s resource and scope, given as one instance per distinct value of the block
     * (the writer shares them, see {@link dev.needle.blocks.model.Interner}): a batch finds them by identity.
     * The vectors were allocated for at least {@code row + 1} rows, as the record columns' {@code write} says.
     */
    void write(int row, Resource resource, Scope scope) {
        Integer heldAt = resourceRows.get(resource);
        if (heldAt == null) {
            resourceRows.put(resource, row);
        }
        int rRow = heldAt == null ? row : heldAt;
        resourceRow.set(row, rRow);
        resourceAttributes.write(row, rRow == row ? resource.attributes() : List.of());
        resourceDropped.set(row, rRow == row ? resource.droppedAttributesCount() : 0);
        Vectors.setNullableString(resourceSchemaUrl, row, rRow == row ? resource.schemaUrl() : "");

        heldAt = scopeRows.get(scope);
        if (heldAt == null) {
            scopeRows.put(scope, row);
        }
        int sRow = heldAt == null ? row : heldAt;
        scopeRow.set(row, sRow);
        Vectors.setNullableString(scopeName, row, sRow == row ? scope.name() : "");
        Vectors.setNullableString(scopeVersion, row, sRow == row ? scope.version() : "");
        scopeAttributes.write(row, sRow == row ? scope.attributes() : List.of());
        scopeDropped.set(row, sRow == row ? scope.droppedAttributesCount() : 0);
        Vectors.setNullableString(scopeSchemaUrl, row, sRow == row ? scope.schemaUrl() : "");
    }

    /** Ends a batch: the next batch writes its resources and scopes anew. */
    void finish(int rows) {
        resourceAttributes.finish(rows);
        scopeAttributes.finish(rows);
        resourceRows.clear();
        scopeRows.clear();
    }

    /** Row {@code row}'s resource; rows that share a resource share one instance. */
    Resource resource(int row) throws CorruptValueException {
        int at = checkedRow(resourceRow.get(row), row, RESOURCE_ROW);
        Resource r = resources.get(at);
        if (r == null) {
            r = new Resource(resourceAttributes.read(at), resourceDropped.get(at), Vectors.getString(resourceSchemaUrl, at));
            resources.put(at, r);
        }
        return r;
    }

    /** Row {@code row}'s scope; rows that share a scope share one instance. */
    Scope scope(int row) throws CorruptValueException {
        int at = checkedRow(scopeRow.get(row), row, SCOPE_ROW);
        Scope s = scopes.get(at);
        if (s == null) {
            s = new Scope(Vectors.getString(scopeName, at), Vectors.getString(scopeVersion, at),
                    scopeAttributes.read(at), scopeDropped.get(at), Vectors.getString(scopeSchemaUrl, at));
            scopes.put(at, s);
        }
        return s;
    }

    /** A reference must point at or before its own row, where the writer put the full record. */
    private static int checkedRow(int at, int row, String column) throws CorruptValueException {
        if (at < 0 || at > row) {
            throw new CorruptValueException(column + " of row " + row + " points at row " + at, 0);
        }
        return at;
    }
}
