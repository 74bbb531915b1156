/* Open-addressing hash map from four 32-bit words to an int (keymap.h): linear probing,
 * doubling at half load, backward-shift deletion so probe chains stay intact. */
#include "common/keymap.h"

#include <string.h>

static size_t key_hash(const struct lens_key *k)
{
    /* FNV-1a over the four words, then the high bits folded down: the table uses the low bits
     * only (cap is a power of two), and rank numbers differ mostly in their low bits. */
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 4; i++)
        h = (h ^ k->w[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static int grow(struct lens_keymap *m)
{
    /* 1024 slots (20 KiB) are small next to any trace and save the first few rehashes. */
    size_t cap = m->cap ? 2 * m->cap : 1024;
    struct lens_key *k = lens_malloc(cap * sizeof *k);
    int32_t *v = lens_malloc(cap * sizeof *v);
    if (!k || !v) {
        lens_free(k);
        lens_free(v);
        return LENS_ENOMEM;
    }
    /* All bytes 0xff is -1 in every int32_t: every slot empty. */
    memset(v, 0xff, cap * sizeof *v);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] < 0)
            continue;
        size_t j = key_hash(&m->keys[i]) & (cap - 1);
        while (v[j] >= 0)
            j = (j + 1) & (cap - 1);
        k[j] = m->keys[i];
        v[j] = m->vals[i];
    }
    lens_free(m->keys);
    lens_free(m->vals);
    m->keys = k, m->vals = v, m->cap = cap;
    return LENS_OK;
}

/* Slot of k: *found tells whether it holds k, else it is the empty slot to fill. */
size_t lens_keymap_slot(const struct lens_keymap *m, const struct lens_key *k, int *found)
{
    size_t j = key_hash(k) & (m->cap - 1);
    /* Terminates because the load stays at most one half: there is always an empty slot. */
    while (m->vals[j] >= 0 && memcmp(&m->keys[j], k, sizeof *k))
        j = (j + 1) & (m->cap - 1);
    *found = m->vals[j] >= 0;
    return j;
}

/* Value of k, adding k -> next when absent (then *added is set). -1 on ENOMEM. */
int32_t lens_keymap_get(struct lens_keymap *m, struct lens_key k, int32_t next, int *added)
{
    /* Grow before inserting, at half load: linear probing degrades quickly past that, and the
     * probe loop above relies on free slots. */
    if ((m->n + 1) * 2 > m->cap && grow(m))
        return -1;
    int found;
    size_t j = lens_keymap_slot(m, &k, &found);
    *added = !found;
    if (!found) {
        m->keys[j] = k;
        m->vals[j] = next;
        m->n++;
    }
    return m->vals[j];
}

/* Removes k (backward-shift deletion keeps probe chains intact). */
void lens_keymap_del(struct lens_keymap *m, struct lens_key k)
{
    if (!m->cap)
        return;
    int found;
    size_t j = lens_keymap_slot(m, &k, &found);
    if (!found)
        return;
    m->vals[j] = -1;
    m->n--;
    /* Every entry after the hole up to the next empty slot may have probed past it: take each
     * out and insert it again, so lookups never stop early at the new hole (no tombstones
     * needed). */
    for (size_t i = (j + 1) & (m->cap - 1); m->vals[i] >= 0; i = (i + 1) & (m->cap - 1)) {
        struct lens_key kk = m->keys[i];
        int32_t vv = m->vals[i];
        m->vals[i] = -1;
        size_t s = key_hash(&kk) & (m->cap - 1);
        while (m->vals[s] >= 0)
            s = (s + 1) & (m->cap - 1);
        m->keys[s] = kk;
        m->vals[s] = vv;
    }
}

/* Leaves the zeroed struct, an empty map again, so a released map can be reused or released
 * twice. */
void lens_keymap_release(struct lens_keymap *m)
{
    lens_free(m->keys);
    lens_free(m->vals);
    memset(m, 0, sizeof *m);
}

