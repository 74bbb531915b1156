/* The scale wing: runs of applications over process counts and sizes, and the scalability
 * marks computed from them (Teplov's marks; docs/methods.md, docs/scale.md).
 * This header is the public contract of its folder: code outside the folder includes this
 * header and no other header of the folder (tests/test_layout.sh checks it). */
#ifndef LENS_SCALE_H
#define LENS_SCALE_H

#include "runs.h"  /* the runs file: read, write, run a grid of configurations */
#include "marks.h" /* scalability marks, their description in words */

#endif
