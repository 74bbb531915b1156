/* The reader table (cube_readers.h): which format reads a cube input. Every entry point that
 * opens a cube goes through lens_cube_readers_find, so a format added here is read by every
 * command (info, report, cluster, nj, links, anomalies, compress, convert, decompress --verify). */
#include "cube_readers.h"

/* network_test2 first: it is the fallback whose messages name the missing file, and its probe
 * looks at names only, so a packed file is opened once, by its own row. */
static const struct lens_cube_reader builtin[] = {
    {"network_test2", lens_cube_nc_probe, lens_cube_nc_read, lens_cube_nc_stream_open},
    {"packed", lens_packed_probe, NULL, lens_packed_stream_open},
};
#define NBUILTIN (sizeof builtin / sizeof *builtin)

/* Rows added at run time (tests): process-wide, never removed.
 * A fixed array: tests add one or two rows, and a static table needs no cleanup at exit. */
static struct lens_cube_reader extra[8];
static size_t nextra;

int lens_cube_readers_add(const struct lens_cube_reader *row, struct lens_err *e)
{
    /* probe and stream_open are what every row must have (find and the streaming readers call
     * them); read is optional, lens_cube_read falls back to the stream. */
    if (nextra >= sizeof extra / sizeof *extra || !row->probe || !row->stream_open)
        return lens_err_set(e, LENS_EINVAL, "reader '%s': %s", row->name ? row->name : "?",
                            nextra >= sizeof extra / sizeof *extra ? "the table is full" : "needs probe and stream_open");
    extra[nextra++] = *row;
    return LENS_OK;
}

/* Built-in rows first, in table order, then the added ones. No row claims the input: the
 * network_test2 row reads it anyway, so the error says which file is missing. */
const struct lens_cube_reader *lens_cube_readers_find(const char *input)
{
    for (size_t i = 0; i < NBUILTIN; i++)
        if (builtin[i].probe(input))
            return &builtin[i];
    for (size_t i = 0; i < nextra; i++)
        if (extra[i].probe(input))
            return &extra[i];
    return &builtin[0];
}

/* Whether any row recognises input, for commands that take several kinds of input (`mpilens
 * report` tells cubes from sweeps and traces with it). */
int lens_cube_probe(const char *input)
{
    for (size_t i = 0; i < NBUILTIN; i++)
        if (builtin[i].probe(input))
            return 1;
    for (size_t i = 0; i < nextra; i++)
        if (extra[i].probe(input))
            return 1;
    return 0;
}

int lens_cube_read(const char *input, struct lens_cube **out, struct lens_err *e)
{
    const struct lens_cube_reader *row = lens_cube_readers_find(input);
    /* a format without a reader of its own is read through its stream, repairs included */
    int rc = row->read ? row->read(input, out, e) : lens_cube_read_streamed(row, input, out, e);
    if (rc == LENS_OK)
        (*out)->format = row->name;
    return rc;
}

int lens_cube_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e)
{
    *out = NULL;
    const struct lens_cube_reader *row = lens_cube_readers_find(input);
    int rc = row->stream_open(input, out, e);
    if (rc != LENS_OK)
        return rc;
    lens_cube_stream_set_format(*out, row->name);
    /* every statistic readable, as cube.h promises */
    if ((rc = lens_cube_stream_plan(*out, 15u, e)) != LENS_OK) {
        lens_cube_stream_close(*out);
        *out = NULL;
    }
    return rc;
}
