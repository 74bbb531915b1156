/* Where mpilens finds its own files, in the build tree or installed under any prefix, without
 * the source tree and without environment variables. The one lookup every command uses:
 *   data   fonts/, templates/ (and templates/rules), samples/: the source tree's root when run
 *          from a build tree, PREFIX/share/mpilens when installed (docs/install.md);
 *   tools  libmpilens-trace.so and mpilens-trace-recover: BUILD/lib when run from a build tree,
 *          PREFIX/lib/mpilens when installed.
 * Locations are found from the running executable (/proc/self/exe), so a prefix copied or
 * moved elsewhere (DESTDIR, an environment module) still works. Paths written are absolute
 * and resolved (realpath); buffers of PATH_MAX bytes always suffice. */
#ifndef LENS_DATADIR_H
#define LENS_DATADIR_H

#include "err.h"

#include <stddef.h>

/* The data directory, holding fonts/DejaVuSans.ttf and templates/report.tmpl: $MPILENS_DATADIR
 * when set (LENS_EIO if it lacks them), else the first of <exe dir>/../.. (build tree),
 * <exe dir>/../share/mpilens (installed) and LENS_DATADIR (compile-time, default
 * /usr/local/share/mpilens) that holds them. LENS_EIO names every place it looked. */
int lens_datadir_find(char *buf, size_t n, struct lens_err *e);

/* <data directory>/rel (e.g. "templates/rules"), which must exist; LENS_EIO otherwise. */
int lens_datadir_locate(const char *rel, char *buf, size_t n, struct lens_err *e);

/* The helper file `name` (libmpilens-trace.so, mpilens-trace-recover): the first existing of
 * <exe dir>/../lib/name (build tree), <exe dir>/../lib/mpilens/name (installed) and
 * LENS_PKGLIBDIR/name (compile-time, default /usr/local/lib/mpilens). LENS_EIO names every
 * place it looked. */
int lens_datadir_find_lib(const char *name, char *buf, size_t n, struct lens_err *e);

#endif
