/* Agreement between two partitions of the same objects: the adjusted Rand index of Hubert and
 * Arabie ("Comparing partitions", 1985), as scikit-learn's adjusted_rand_score computes it.
 * Used to say how far the agglomerative clustering of links agrees with the divisive one. */
#ifndef LENS_ARI_H
#define LENS_ARI_H

#include <stddef.h>

#include "common/err.h"

/* ARI of labellings u and v of n >= 1 objects; labels are any values in [0, n) (their numbering
 * does not matter). 1 for identical partitions (also when both are one cluster, or both all
 * singletons), about 0 for independent ones, negative below chance. No memory kept.
 * LENS_EINVAL (n < 1 or a label out of range), LENS_ENOMEM. */
int lens_ari_compute(const int *u, const int *v, size_t n, double *ari, struct lens_err *e);

#endif
