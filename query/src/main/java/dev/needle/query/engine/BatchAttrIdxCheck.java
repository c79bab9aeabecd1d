package dev.needle.query.engine;

import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.Sidecar;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which record batches of a block a search's equalities rule out, by the block's BATCH_ATTR_IDX:
 * judged as ATTR_IDX judges the block ({@code SearchTarget.ruledOutBy(KeyFilter)}), condition by
 * condition, with the probes of one batch instead of the block's. An equality {@code key = literal}
 * (or a {@code =~} alternation of literals, each an equality) rules batch b out when no indexed key
 * its values may lie under may hold one of them in b (or when they need a double and the block holds none); AND is ruled out by any term, OR only by every term; any
 * other condition rules nothing out.
 */
final class BatchAttrIdxCheck {

    private final Expr expr;
    /** Each equality an index decides, with the hashes of the pairs that would match it. */
    private final Map<Expr.Condition, List<AttributeHash>> pairs = new HashMap<>();

    private BatchAttrIdxCheck(Expr expr) {
        this.expr = expr;
        collect(expr);
    }

    /** The check of {@code expr}, or null when it can rule no batch out: then the file need not be read. */
    static BatchAttrIdxCheck of(Expr expr) {
        BatchAttrIdxCheck check = new BatchAttrIdxCheck(expr);
        return SearchTarget.ruledOut(expr, c -> check.pairs.containsKey(c) ? "" : null) == null ? null : check;
    }

    private void collect(Expr e) {
        if (e instanceof Expr.And and) {
            and.terms().forEach(this::collect);
        } else if (e instanceof Expr.Or or) {
            or.terms().forEach(this::collect);
        } else if (e instanceof Expr.Condition c && !c.equalities().isEmpty()
                && !c.attribute().indexedKeys().isEmpty()) {
            List<AttributeHash> hashes = new ArrayList<>();
            for (Literal value : c.equalities()) {
                for (String key : c.attribute().indexedKeys()) {
                    hashes.add(value.hash(key));
                }
            }
            pairs.put(c, hashes);
        }
    }

    /** Null when the verified BATCH_ATTR_IDX {@code file} cannot rule batch {@code batch} out, else why it does. */
    String ruledOut(Sidecar file, int batch) {
        return SearchTarget.ruledOut(expr, c -> ruledOut(c, file, batch));
    }

    private String ruledOut(Expr.Condition c, Sidecar file, int batch) {
        List<AttributeHash> hashes = pairs.get(c);
        if (hashes == null) {
            return null;
        }
        if (c.equalities().stream().allMatch(Literal::matchesOnlyDoubles) && !file.mayHoldDoubles()) {
            return "BATCH_ATTR_IDX: the block holds no double, so nothing equals " + c;
        }
        for (AttributeHash pair : hashes) {
            if (file.mayContain(pair, batch)) {
                return null;
            }
        }
        return "BATCH_ATTR_IDX rules out " + c;
    }
}
