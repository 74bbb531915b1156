/* Atomic output: a result file appears whole or not at all, and a multi-file result (a
 * command's output group) appears as a whole (docs/outputs.md). */
#ifndef LENS_ATOMIC_H
#define LENS_ATOMIC_H

#include <stdio.h>

#include "common/err.h"

/* Atomic output (docs/outputs.md). A target that exists and is not a regular file (a
 * device such as /dev/null, a FIFO, /dev/stdout) is written in place and never replaced.
 * Otherwise the bytes go to a temporary created with O_CREAT|O_EXCL|O_NOFOLLOW beside the
 * target ("<path>.tmp<pid>-<6 random letters or digits>"), which commit fsyncs and renames
 * over the target, so a failure never leaves a half-written file and nobody can plant a link
 * under our name.
 * The struct owns its names and the open FILE until commit/abort. */
struct lens_atomic {
    char *path; /* final name (owned copy) */
    char *tmp;  /* the name written to (owned): a fresh temporary beside path, or, for a
                   library that writes by name, "<dir>/<basename>" in a private directory */
    FILE *fp;   /* open for writing, NULL when the writer is a library */
    char *dir;  /* private directory (mode 0700, made by mkdtemp) holding tmp, or NULL */
    int inplace; /* path is a device/FIFO: fp writes it directly; a library's tmp is copied
                    into it on commit */
    void *sink;  /* under fp: the descriptor and the errno of its first failed write */
};
/* Opens the output with fopen-like mode ("w", "wb") unless mode is NULL: then only tmp is
 * set, a name in a private directory that a library (netCDF, libharu) may create and write.
 * LENS_EIO (naming path, with strerror) when path is a directory or nothing can be created,
 * LENS_ENOMEM; on failure a is released and nothing is left on disk. */
int lens_atomic_open(struct lens_atomic *a, const char *path, const char *mode, struct lens_err *e);
/* Flushes, fsyncs, closes and renames (inside a group: leaves the rename to the group);
 * on failure removes tmp and says why with the system's reason (strerror): LENS_EIO, or
 * LENS_ENOMEM when the group cannot record the file. Always releases a. */
int lens_atomic_commit(struct lens_atomic *a, struct lens_err *e);
/* Removes tmp and releases a; safe on a zeroed or already released struct. */
void lens_atomic_abort(struct lens_atomic *a);
/* Ends a writer whose code returned rc (!= LENS_OK) after writing to a->fp: when the stream
 * holds a write error, e says "PATH: write failed: <strerror(errno)>" (No space left on
 * device, File too large) instead of the writer's generic message. Call it right after the
 * failed write, before anything can change errno. Aborts a; returns the code recorded. */
int lens_atomic_fail(struct lens_atomic *a, int rc, struct lens_err *e);

/* A multi-file result appears whole or not at all. Between group_begin and group_commit,
 * lens_atomic_commit writes, syncs and closes each file but keeps it under its temporary
 * name; group_commit renames them all, and if a rename fails removes every temporary and
 * every part it already renamed. group_abort removes them all (at any depth: the whole
 * group is dropped). Groups nest (only the outermost commit renames); not thread-safe: the
 * serial tool and rank 0 use them. group_commit returns LENS_EIO naming the file whose rename
 * failed (with strerror); the group is closed either way. */
void lens_atomic_group_begin(void);
int lens_atomic_group_commit(struct lens_err *e);
void lens_atomic_group_abort(void);
/* The temporary name under which the open group keeps path's content, or NULL. */
const char *lens_atomic_group_find(const char *path);
/* Scratch files a command writes and reads back itself are no results: between suspend and
 * resume, commits rename at once. resume takes what suspend returned. */
int lens_atomic_group_suspend(void);
void lens_atomic_group_resume(int depth);
/* A folder of results (report --figures DIR): when DIR does not exist yet and a group is
 * open, *where is a fresh private folder "DIR.tmpXXXXXX" (mkdtemp) that group_commit renames to DIR
 * (group_abort removes it with its contents); otherwise DIR is made (with its parents) and
 * *where is a copy of DIR. The caller frees *where with lens_free. LENS_EIO (a parent or the
 * folder cannot be made) or LENS_ENOMEM, with *where NULL. */
int lens_atomic_dir(const char *dir, char **where, struct lens_err *e);

/* Makes a directory and its parents (mode 0777 less the umask); an existing directory is
 * fine. LENS_EIO when a part cannot be made or path is not a directory, LENS_ENOMEM. */
int lens_atomic_mkdir_p(const char *path, struct lens_err *e);

#endif
