/* Newick trees: construction from a linkage, writing with quoted labels, a parser for tests,
 * and split-based comparison (Robinson-Foulds). Traversals use explicit stacks because a
 * single-linkage dendrogram of thousands of processes can be as deep as it is wide. */
#include "newick.h"
#include "common/atomic.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Three child slots per internal node cover both users: binary dendrograms leave the third at
 * -1, an unrooted NJ tree uses it at the root. One allocation of 3 * ninternal ints instead
 * of per-node lists keeps the tree two flat arrays, cheap to walk without recursion. */
int lens_newick_new(struct lens_newick **out, int nleaf, int ninternal, struct lens_err *e)
{
    *out = NULL;
    if (nleaf < 1 || ninternal < 0)
        return lens_err_set(e, LENS_EINVAL, "a tree needs leaves (got %d)", nleaf);
    struct lens_newick *t = lens_calloc(1, sizeof *t);
    if (!t)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a tree of %d leaves", nleaf);
    t->nleaf = nleaf;
    t->nnode = nleaf + ninternal;
    /* at least one slot: a one-leaf tree (no internal node) still gets a valid pointer */
    t->child = lens_malloc((size_t)(ninternal > 0 ? ninternal : 1) * 3 * sizeof *t->child);
    t->len = lens_calloc((size_t)t->nnode, sizeof *t->len);
    if (!t->child || !t->len) {
        lens_newick_free(t);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a tree of %d leaves", nleaf);
    }
    for (int i = 0; i < 3 * ninternal; i++)
        t->child[i] = -1;
    *out = t;
    return LENS_OK;
}

/* Accepts a half-built tree (labels partly set), the state the parser's error path leaves. */
void lens_newick_free(struct lens_newick *t)
{
    if (!t)
        return;
    if (t->labels)
        for (int i = 0; i < t->nleaf; i++)
            lens_free(t->labels[i]);
    lens_free(t->labels);
    lens_free(t->child);
    lens_free(t->len);
    lens_free(t);
}

/* Z's numbering is already the tree's: merge k is internal node n + k and the last merge is
 * the root (node 2n - 2 = nnode - 1). A branch is the height difference, so the leaf-to-root
 * path lengths add up to the merge height, which is what makes the Newick tree ultrametric
 * and the dendrogram drawn from it match Z. */
int lens_newick_from_hclust(const struct lens_hclust_step *z, int n, struct lens_newick **out,
                            struct lens_err *e)
{
    int rc = lens_newick_new(out, n, n - 1, e);
    if (rc < 0)
        return rc;
    struct lens_newick *t = *out;
    for (int k = 0; k < n - 1; k++) {
        int a = z[k].left, b = z[k].right;
        t->child[3 * k] = a;
        t->child[3 * k + 1] = b;
        t->len[a] = z[k].height - (a < n ? 0.0 : z[a - n].height);
        t->len[b] = z[k].height - (b < n ? 0.0 : z[b - n].height);
    }
    return LENS_OK;
}

/* ---- writing ---- */

/* Characters that need no quotes in Newick. '_' is deliberately not among them: in standard
 * Newick an unquoted underscore means a blank, so "node_1" is quoted to survive a round trip.
 * isalnum is ASCII-only in the C locale the tool runs in. */
static int plain_char(int c)
{
    return isalnum(c) || c == '.' || c == '@' || c == '/' || c == '+' || c == '-';
}

/* An empty label is quoted too (''), so the leaf is still visibly there. Inside quotes the
 * only escape Newick knows is a doubled quote. */
static void write_label(FILE *fp, const char *s)
{
    int plain = *s != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = plain_char((unsigned char)*p);
    if (plain) {
        fputs(s, fp);
        return;
    }
    fputc('\'', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            fputc('\'', fp);
        fputc(*p, fp);
    }
    fputc('\'', fp);
}

/* Iterative preorder with an explicit stack of (node, next child): a single-linkage
 * dendrogram can be a chain n deep, and recursion that deep would overflow the C stack.
 * The stack never holds more than nnode entries (each node is on it at most once). The
 * writer checks the stream once at the end: stdio errors are sticky, so one ferror after the
 * last write catches a failure anywhere in between. */
int lens_newick_write(const struct lens_newick *t, const char *const *labels, FILE *fp,
                      struct lens_err *e)
{
    int root = t->nnode - 1;
    /* node[] and next[] form the stack: the node being written and its next child to visit */
    int *node = lens_malloc((size_t)t->nnode * sizeof *node);
    int *next = lens_malloc((size_t)t->nnode * sizeof *next);
    if (!node || !next) {
        lens_free(node);
        lens_free(next);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for writing a tree");
    }
    int top = 0;
    node[top] = root;
    next[top++] = 0;
    /* invariant: the stack holds the path from the root to the node being written */
    while (top > 0) {
        int u = node[top - 1], c = next[top - 1];
        if (u < t->nleaf) {
            if (labels)
                write_label(fp, labels[u]);
            else if (t->labels)
                write_label(fp, t->labels[u]);
            else
                fprintf(fp, "%d", u);
        } else {
            /* unused child slots are -1 and only ever trail the used ones */
            const int *kid = t->child + 3 * (size_t)(u - t->nleaf);
            /* the first child opens the group, later ones are separated by ',' */
            if (c < 3 && kid[c] >= 0) {
                fputc(c == 0 ? '(' : ',', fp);
                next[top - 1] = c + 1;
                node[top] = kid[c];
                next[top++] = 0;
                continue;
            }
            /* every child written: close the group, then this node's own length */
            fputc(')', fp);
        }
        /* %.17g: the lengths read back equal the computed ones bit for bit; the root has none */
        if (u != root)
            fprintf(fp, ":%.17g", t->len[u]);
        top--;
    }
    fputs(";\n", fp);
    lens_free(node);
    lens_free(next);
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "error writing the tree: %s", strerror(errno));
    return LENS_OK;
}

/* Through the atomic writer: a full disk leaves the old file, not half a tree. */
int lens_newick_save(const struct lens_newick *t, const char *const *labels, const char *path,
                     struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc < 0)
        return rc;
    if ((rc = lens_newick_write(t, labels, a.fp, e)) < 0) {
        lens_err_prefix(e, path);
        return lens_atomic_fail(&a, rc, e); /* the system's reason for a failed write */
    }
    return lens_atomic_commit(&a, e);
}

/* ---- parsing ---- */

/* The parser exists for the tests (comparing mpilens's trees with reference trees) and for
 * reading a tree back; it accepts the subset of Newick the writer and common tools produce:
 * quoted or plain labels, optional lengths, internal names (ignored), at most 3 children.
 * Every error names the byte offset, which is how a user finds it in a one-line file. */
struct parser {
    const char *s;
    size_t pos;
    struct lens_err *e;
};

static void skip_ws(struct parser *p)
{
    while (isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

/* Reads a label (quoted or plain) into a new string; empty plain labels give "".
 * A doubled quote inside a quoted label is one quote; the buffer doubles when full, keeping
 * room for the terminator (k + 2 > cap). A plain label ends at any Newick punctuation or
 * blank. NULL means either an error already set (unterminated quote) or out of memory; the
 * callers tell the two apart by e->code. */
static char *parse_label(struct parser *p)
{
    skip_ws(p);
    size_t cap = 16, k = 0;
    char *buf = lens_malloc(cap);
    if (!buf)
        return NULL;
    if (p->s[p->pos] == '\'') {
        p->pos++;
        for (;;) {
            char c = p->s[p->pos];
            if (c == '\0') {
                lens_free(buf);
                lens_err_set(p->e, LENS_EFORMAT, "newick: unterminated quoted label at byte %zu",
                             p->pos);
                return NULL;
            }
            p->pos++;
            if (c == '\'') {
                if (p->s[p->pos] != '\'')
                    break;
                p->pos++;
            }
            if (k + 2 > cap) {
                char *nb = lens_realloc(buf, cap *= 2);
                if (!nb)
                    return lens_free(buf), NULL;
                buf = nb;
            }
            buf[k++] = c;
        }
    } else {
        while (p->s[p->pos] && !strchr("(),:;", p->s[p->pos]) &&
               !isspace((unsigned char)p->s[p->pos])) {
            if (k + 2 > cap) {
                char *nb = lens_realloc(buf, cap *= 2);
                if (!nb)
                    return lens_free(buf), NULL;
                buf = nb;
            }
            buf[k++] = p->s[p->pos++];
        }
    }
    buf[k] = '\0';
    return buf;
}

/* A missing ":length" is 0, as most Newick writers mean by omitting it. */
static int parse_length(struct parser *p, double *len)
{
    skip_ws(p);
    *len = 0;
    if (p->s[p->pos] != ':')
        return LENS_OK;
    p->pos++;
    char *end;
    errno = 0;
    *len = strtod(p->s + p->pos, &end);
    if (end == p->s + p->pos)
        return lens_err_set(p->e, LENS_EFORMAT, "newick: branch length expected at byte %zu",
                            p->pos);
    /* nan, inf and 1e999 parse as numbers but are no length: the comparison would be NaN */
    if (errno == ERANGE || !isfinite(*len))
        return lens_err_set(p->e, LENS_EFORMAT, "newick: branch length at byte %zu is not a "
                            "finite number", p->pos);
    p->pos = (size_t)(end - p->s);
    return LENS_OK;
}

/* A single pass with a stack of open groups instead of recursion, for the same reason as the
 * writer. The bounds make hostile input safe: a tree of n leaves has at most n - 1 internal
 * nodes (hence used < n - 1 before each new one) and depth < n, so kids (4 ints per open
 * group: a count and 3 children) can never overflow, whatever the text says. `last` is the
 * node just completed, -1 when a label or '(' is expected next. */
int lens_newick_parse(const char *text, const char *const *names, int n,
                      struct lens_newick **out, struct lens_err *e)
{
    struct parser p = {text, 0, e};
    struct lens_newick *t = NULL;
    int rc = lens_newick_new(&t, n, n - 1, e);
    if (rc < 0)
        return rc;
    int *kids = lens_malloc((size_t)n * 4 * sizeof *kids); /* per open '(': count + 3 */
    char *seen = lens_calloc((size_t)n, 1);
    t->labels = lens_calloc((size_t)n, sizeof *t->labels);
    if (!kids || !seen || !t->labels) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory for parsing a tree");
        goto done;
    }
    int depth = 0, used = 0, last = -1;
    for (;;) {
        skip_ws(&p);
        char c = text[p.pos];
        if (c == '(') {
            /* "(a,b)(c,d)": a second subtree where a ',' or ')' belongs would be lost */
            if (last >= 0) {
                rc = lens_err_set(e, LENS_EFORMAT, "newick: unexpected '(' at byte %zu", p.pos);
                goto done;
            }
            if (depth >= n) {
                rc = lens_err_set(e, LENS_EFORMAT, "newick: too deep at byte %zu", p.pos);
                goto done;
            }
            /* a new group with no children yet */
            kids[4 * depth++] = 0;
            p.pos++;
            last = -1;
        } else if (c == ',' || c == ')') {
            int *f = depth > 0 ? kids + 4 * (depth - 1) : NULL;
            if (!f || last < 0 || f[0] >= 3) {
                rc = lens_err_set(e, LENS_EFORMAT, "newick: unexpected '%c' at byte %zu", c,
                                  p.pos);
                goto done;
            }
            /* the completed child joins the innermost open group */
            f[1 + f[0]++] = last;
            p.pos++;
            last = -1;
            if (c == ')') {
                /* "(a)" would be a node of one child, which no tree here has; more internal nodes
                 * than n - 1 cannot happen with at least 2 children each, so the second test only
                 * guards the array */
                if (f[0] < 2 || used >= n - 1) {
                    rc = lens_err_set(e, LENS_EFORMAT, "newick: node with %d child at byte %zu",
                                      f[0], p.pos);
                    goto done;
                }
                int u = n + used++;
                for (int k = 0; k < f[0]; k++)
                    t->child[3 * (u - n) + k] = f[1 + k];
                depth--;
                char *name = parse_label(&p); /* internal names are ignored */
                if (!name) {
                    rc = e && e->code ? e->code : lens_err_set(e, LENS_ENOMEM, "out of memory");
                    goto done;
                }
                lens_free(name);
                if ((rc = parse_length(&p, &t->len[u])) < 0)
                    goto done;
                last = u;
            }
        } else if (c == ';' || c == '\0') {
            /* an unclosed '(', no tree at all, or no ';' at the end */
            if (depth != 0 || last < 0 || c == '\0') {
                rc = lens_err_set(e, LENS_EFORMAT, "newick: tree ends early at byte %zu", p.pos);
                goto done;
            }
            break;
        } else {
            if (last >= 0) {
                rc = lens_err_set(e, LENS_EFORMAT, "newick: unexpected text at byte %zu", p.pos);
                goto done;
            }
            size_t at = p.pos;
            char *name = parse_label(&p);
            if (!name) {
                rc = e && e->code ? e->code : lens_err_set(e, LENS_ENOMEM, "out of memory");
                goto done;
            }
            int leaf = -1;
            /* Linear lookup: O(n^2) for the whole tree, fine at the sizes the tests parse
             * (thousands); matching by name is what lets leaf numbers agree with the other tree
             * being compared. */
            for (int i = 0; i < n && leaf < 0; i++)
                if (!strcmp(names[i], name))
                    leaf = i;
            /* each leaf exactly once: a repeat or an unknown name would make the splits
             * meaningless */
            if (leaf < 0 || seen[leaf]) {
                rc = lens_err_set(e, LENS_EFORMAT, "newick: leaf '%s' at byte %zu is %s", name, at,
                                  leaf < 0 ? "unknown" : "repeated");
                lens_free(name);
                goto done;
            }
            seen[leaf] = 1;
            t->labels[leaf] = name;
            if ((rc = parse_length(&p, &t->len[leaf])) < 0)
                goto done;
            last = leaf;
        }
    }
    /* every name given must appear, or the two trees compared would not share their leaves */
    for (int i = 0; i < n; i++)
        if (!seen[i]) {
            rc = lens_err_set(e, LENS_EFORMAT, "newick: leaf '%s' is missing", names[i]);
            goto done;
        }
    /* A tree with a root of degree 3 has fewer internal nodes than the n - 1 reserved: nnode
     * shrinks so that the last node created, the outermost group, is the root. */
    t->nnode = n + used;
    /* the root has no parent: a length written after the last ')' means nothing here */
    t->len[t->nnode - 1] = 0;
    *out = t;
    t = NULL;
done:
    lens_free(kids);
    lens_free(seen);
    lens_newick_free(t);
    return rc;
}

/* ---- comparison ---- */

/* Each edge of a tree splits the leaves in two; a split is stored as a bitset of the side
 * without leaf 0 (64 leaves per word), so the same split from two trees, whichever way they
 * are rooted, has the same bits. */
struct splits {
    int count, words;
    uint64_t *bits; /* count * words */
    double *len;
};

/* Orders split indices by their bitsets, word by word: any total order works, it only has to
 * bring equal splits together for the merge in lens_newick_compare. */
static int cmp_split(const void *a, const void *b, void *arg)
{
    const struct splits *s = arg;
    const uint64_t *x = s->bits + (size_t)*(const int *)a * s->words;
    const uint64_t *y = s->bits + (size_t)*(const int *)b * s->words;
    for (int w = 0; w < s->words; w++)
        if (x[w] != y[w])
            return x[w] < y[w] ? -1 : 1;
    return 0;
}

/* Splits of every non-root edge, normalised to the side without leaf 0, sorted, equal ones
 * (the two edges at a root of degree 2) merged with their lengths summed. */
static int tree_splits(const struct lens_newick *t, struct splits *s, int **order_out,
                       struct lens_err *e)
{
    /* Memory: one bitset of n bits per node, O(nnode n / 64) words, fine for the thousands of
     * leaves the tests compare. On failure the caller frees bits and len, which it owns. */
    int n = t->nleaf, W = (n + 63) / 64;
    s->words = W;
    s->bits = lens_calloc((size_t)t->nnode * W, sizeof *s->bits);
    s->len = lens_malloc((size_t)t->nnode * sizeof *s->len);
    int *order = lens_malloc((size_t)t->nnode * sizeof *order);
    if (!s->bits || !s->len || !order) {
        lens_free(order);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for comparing trees");
    }
    /* a leaf's subtree is itself; an internal node's is the union of its children's */
    for (int i = 0; i < n; i++)
        s->bits[(size_t)i * W + i / 64] |= 1ull << (i % 64);
    for (int u = n; u < t->nnode; u++) /* children always precede their parent */
        for (int c = 0; c < 3; c++) {
            int k = t->child[3 * (u - n) + c];
            if (k >= 0)
                for (int w = 0; w < W; w++)
                    s->bits[(size_t)u * W + w] |= s->bits[(size_t)k * W + w];
        }
    /* every edge except the root's (which has none): nnode - 1 splits before merging */
    int cnt = 0;
    for (int u = 0; u < t->nnode - 1; u++) {
        uint64_t *b = s->bits + (size_t)u * W;
        /* The subtree contains leaf 0: store the complement (within the n valid bits of the last
         * word) instead, so rooting does not matter. */
        if (b[0] & 1)
            for (int w = 0; w < W; w++)
                b[w] = ~b[w] & (w == W - 1 && n % 64 ? (1ull << (n % 64)) - 1 : ~0ull);
        s->len[u] = t->len[u];
        order[cnt++] = u;
    }
    /* Sorting makes the comparison a linear merge: O(n log n x n/64) instead of testing every
     * pair of splits. The two edges below a root of degree 2 give the same split (one edge of
     * the unrooted tree), hence the merge of equal neighbours with their lengths added. */
    qsort_r(order, (size_t)cnt, sizeof *order, cmp_split, s);
    int m = 0;
    for (int i = 0; i < cnt; i++) {
        if (m > 0 && cmp_split(&order[m - 1], &order[i], s) == 0)
            s->len[order[m - 1]] += s->len[order[i]];
        else
            order[m++] = order[i];
    }
    s->count = m;
    *order_out = order;
    return LENS_OK;
}

/* leaves on the stored side of split u: 1 or n - 1 means a leaf edge, which every tree has */
static int popcount_split(const struct splits *s, int u)
{
    int c = 0;
    for (int w = 0; w < s->words; w++)
        c += __builtin_popcountll(s->bits[(size_t)u * s->words + w]);
    return c;
}

/* Robinson and Foulds' distance, counted as the non-trivial splits found in only one of the
 * trees: a merge walk over the two sorted lists. Leaf edges take part in maxdiff (their
 * lengths are NJ's output too) but not in rf (every tree on n leaves has them). */
int lens_newick_compare(const struct lens_newick *a, const struct lens_newick *b, int *rf,
                        double *maxdiff, struct lens_err *e)
{
    if (a->nleaf != b->nleaf)
        return lens_err_set(e, LENS_EINVAL, "trees have %d and %d leaves", a->nleaf, b->nleaf);
    struct splits sa = {0}, sb = {0};
    int *oa = NULL, *ob = NULL, n = a->nleaf;
    int rc = tree_splits(a, &sa, &oa, e);
    if (rc == LENS_OK)
        rc = tree_splits(b, &sb, &ob, e);
    if (rc == LENS_OK) {
        /* invariant: every split before i in sa and before j in sb has been counted or matched */
        int i = 0, j = 0, d = 0;
        double md = 0;
        while (i < sa.count || j < sb.count) {
            int c;
            /* c < 0: sa's split is smaller, so sb lacks it; c > 0 the other way round */
            if (i == sa.count) {
                c = 1;
            } else if (j == sb.count) {
                c = -1;
            } else {
                const uint64_t *x = sa.bits + (size_t)oa[i] * sa.words;
                const uint64_t *y = sb.bits + (size_t)ob[j] * sb.words;
                c = 0;
                for (int w = 0; w < sa.words && c == 0; w++)
                    if (x[w] != y[w])
                        c = x[w] < y[w] ? -1 : 1;
            }
            if (c == 0) {
                double diff = fabs(sa.len[oa[i]] - sb.len[ob[j]]);
                /* a NaN difference must show, not be lost by the comparison */
                if (diff > md || isnan(diff))
                    md = diff;
                i++;
                j++;
            } else {
                const struct splits *s = c < 0 ? &sa : &sb;
                int u = c < 0 ? oa[i++] : ob[j++];
                int pc = popcount_split(s, u);
                d += pc >= 2 && pc <= n - 2;
            }
        }
        *rf = d;
        *maxdiff = md;
    }
    lens_free(sa.bits);
    lens_free(sa.len);
    lens_free(sb.bits);
    lens_free(sb.len);
    lens_free(oa);
    lens_free(ob);
    return rc;
}
