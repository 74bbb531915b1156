/* A small hash map from a key of four 32-bit words to a non-negative int, for matching
 * messages by channel, numbering collectives per communicator and following requests. A
 * zeroed struct is an empty map; lens_keymap_release() frees it. */
#ifndef LENS_KEYMAP_H
#define LENS_KEYMAP_H

#include "common/err.h"

#include <stddef.h>
#include <stdint.h>

struct lens_key { uint32_t w[4]; };

struct lens_keymap {
    struct lens_key *keys;
    int32_t *vals;   /* -1: empty slot */
    size_t cap, n;   /* slots (a power of two, or 0), entries */
};

/* Value of k, adding k -> next when absent (then *added is set). -1 on ENOMEM. */
int32_t lens_keymap_get(struct lens_keymap *m, struct lens_key k, int32_t next, int *added);
/* Slot of k (m->cap must be > 0): *found tells whether it holds k; m->vals[slot] is its value
 * and may be overwritten. */
size_t lens_keymap_slot(const struct lens_keymap *m, const struct lens_key *k, int *found);
/* Removes k when present. */
void lens_keymap_del(struct lens_keymap *m, struct lens_key k);
/* Frees the map and leaves it empty. */
void lens_keymap_release(struct lens_keymap *m);

#endif
