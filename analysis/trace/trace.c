/* OTF2 archive -> per-rank MPI call lists (see trace.h). Global definitions give strings,
 * regions, locations, communicators and windows; each rank's local definitions give its clock
 * offsets; its events are folded into calls (outermost MPI region) holding their records. */
#include "trace.h"

#include "otf2evt.h"
#include "common/otf2names.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Definition ids index arrays here (grow), so an id is also an allocation size: a damaged id of
 * 2^31 must be refused, not allocated. 16 M definitions is far beyond any real archive. */
#define MAX_DEF_ID (1u << 24) /* larger definition ids mean a damaged archive */

/* One OTF2 location (thread). Only the first CPU thread of each location group becomes a rank;
 * other threads' events are not read (the analyses are per MPI process). */
struct loc {
    uint64_t id;
    uint64_t group;   /* location group id */
    int rank;         /* world rank, -1 when the location is not a rank's master thread */
};

/* Definitions are read into these tables first and turned into the trace's own (world ranks per
 * communicator) once all are known: OTF2 may define a group after the comm that uses it. */
struct state {
    struct lens_otf2evt ev;      /* trace, error, region classes and the per-rank reading */
    struct loc *locs;
    size_t nlocs;
    uint32_t *region_name;       /* string id of each region's name */
    uint64_t *comm_group;        /* group id of each comm */
    uint64_t *group_type, **group_members;
    uint32_t *group_nmembers;
    uint32_t ngroups_def;
    uint32_t attr_id[64], attr_name[64]; /* attribute definitions, names resolved later */
    int nattr;
};

#define fail(s, ...) lens_otf2evt_fail(&(s)->ev, __VA_ARGS__)

/* Grows *p (elements of size sz) so that index idx is valid; new slots are zeroed. */
/* Zeroed slots matter: a hole in the ids (an id never defined) must read as "undefined" (region
 * class 0, group type 0), not as garbage. */
static int grow(void **p, uint32_t *n, uint64_t idx, size_t sz)
{
    if (idx < *n)
        return LENS_OK;
    if (idx >= MAX_DEF_ID)
        return LENS_EFORMAT;
    uint32_t m = *n ? *n : 16;
    while (m <= idx)
        m *= 2;
    void *q = lens_realloc(*p, (size_t)m * sz);
    if (!q)
        return LENS_ENOMEM;
    memset((char *)q + (size_t)*n * sz, 0, (size_t)(m - *n) * sz);
    *p = q;
    *n = m;
    return LENS_OK;
}

/* Any failure other than memory is an id out of range (grow's only other error): the message
 * names the definition kind and id so a damaged archive can be located. */
static OTF2_CallbackCode def_fail(struct state *s, int rc, const char *what, uint64_t id)
{
    fail(s, rc == LENS_ENOMEM ? LENS_ENOMEM : LENS_EFORMAT, "%s definition %llu: %s", what,
         (unsigned long long)id, rc == LENS_ENOMEM ? "out of memory" : "id out of range");
    return OTF2_CALLBACK_INTERRUPT;
}

/* ---- global definitions ---- */

/* The timer resolution divides every timestamp (ticks per second); a zero would turn every time
 * into infinity, so it is refused here with the archive's name. */
static OTF2_CallbackCode on_clock(void *u, uint64_t res, uint64_t goff, uint64_t len, uint64_t rt)
{
    struct state *s = u;
    (void)len, (void)rt;
    if (res == 0) {
        fail(s, LENS_EFORMAT, "clock properties give a timer resolution of 0");
        return OTF2_CALLBACK_INTERRUPT;
    }
    s->ev.t->resolution = (double)res;
    s->ev.global_offset = goff;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *str)
{
    struct state *s = u;
    uint32_t n = s->ev.t->nstrings;
    int rc = grow((void **)&s->ev.t->strings, &n, self, sizeof(char *));
    if (rc)
        return def_fail(s, rc, "string", self);
    s->ev.t->nstrings = n;
    /* A string id defined twice keeps its last text (and the first copy is not leaked). */
    lens_free(s->ev.t->strings[self]);
    if (!(s->ev.t->strings[self] = lens_strdup(str ? str : "")))
        return def_fail(s, LENS_ENOMEM, "string", self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canon, OTF2_StringRef descr, OTF2_RegionRole role,
                                   OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                   OTF2_StringRef file, uint32_t b, uint32_t end)
{
    struct state *s = u;
    (void)canon, (void)descr, (void)role, (void)flags, (void)file, (void)b, (void)end;
    uint32_t n = s->ev.t->nregions, n2 = s->ev.t->nregions;
    int rc = grow((void **)&s->region_name, &n, self, sizeof(uint32_t));
    if (!rc)
        rc = grow((void **)&s->ev.region_mpi, &n2, self, 1);
    if (rc)
        return def_fail(s, rc, "region", self);
    s->ev.t->nregions = n;
    s->region_name[self] = name;
    /* Class 2 (MPI call) by paradigm here; read_globals also promotes regions named MPI_* whose
     * writer left the paradigm unset. */
    s->ev.region_mpi[self] = paradigm == OTF2_PARADIGM_MPI ? 2 : 1; /* 0: undefined hole */
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef g)
{
    struct state *s = u;
    (void)name, (void)nev;
    /* GPU and metric locations carry no MPI calls. */
    if (type != OTF2_LOCATION_TYPE_CPU_THREAD)
        return OTF2_CALLBACK_SUCCESS;
    struct loc *l = lens_realloc(s->locs, (s->nlocs + 1) * sizeof *l);
    if (!l)
        return def_fail(s, LENS_ENOMEM, "location", self);
    s->locs = l;
    l[s->nlocs++] = (struct loc){self, g, -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm par, OTF2_GroupFlag flags,
                                  uint32_t nm, const uint64_t *members)
{
    struct state *s = u;
    (void)name, (void)flags;
    uint32_t n = s->ngroups_def, n2 = s->ngroups_def, n3 = s->ngroups_def;
    int rc = grow((void **)&s->group_type, &n, self, sizeof(uint64_t));
    if (!rc)
        rc = grow((void **)&s->group_members, &n2, self, sizeof(uint64_t *));
    if (!rc)
        rc = grow((void **)&s->group_nmembers, &n3, self, sizeof(uint32_t));
    if (rc)
        return def_fail(s, rc, "group", self);
    s->ngroups_def = n;
    /* only MPI groups matter; Score-P's measurement-system groups are skipped */
    if (par == OTF2_PARADIGM_MEASUREMENT_SYSTEM)
        return OTF2_CALLBACK_SUCCESS;
    /* Types are stored + 1 so that 0 stays "not an MPI group" (skipped or undefined). */
    s->group_type[self] = (uint64_t)type + 1;
    lens_free(s->group_members[self]);
    s->group_members[self] = NULL;
    s->group_nmembers[self] = nm;
    if (nm) {
        if (!(s->group_members[self] = lens_malloc((size_t)nm * sizeof(uint64_t))))
            return def_fail(s, LENS_ENOMEM, "group", self);
        memcpy(s->group_members[self], members, (size_t)nm * sizeof(uint64_t));
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct state *s = u;
    (void)parent, (void)flags;
    uint32_t n = s->ev.t->ncomms, n2 = s->ev.t->ncomms;
    int rc = grow((void **)&s->ev.t->comms, &n, self, sizeof(struct lens_trace_comm));
    if (!rc)
        rc = grow((void **)&s->comm_group, &n2, self, sizeof(uint64_t));
    if (rc)
        return def_fail(s, rc, "comm", self);
    s->ev.t->ncomms = n;
    s->ev.t->comms[self].name = name;
    /* + 1 for the same reason: 0 means "no group known", and the comm then maps ranks by
     * identity. */
    s->comm_group[self] = (uint64_t)group + 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* A window is known by its communicator: RMA records name partners by rank in it (win_peer in
 * otf2evt.c) and window creation is collective over it (events.c). Slots of windows never
 * defined hold LENS_NONE, which the callers treat as "world ranks". */
static OTF2_CallbackCode on_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name,
                                OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    struct state *s = u;
    (void)name, (void)flags;
    uint32_t n = s->ev.t->nwins;
    int rc = grow((void **)&s->ev.t->win_comm, &n, self, sizeof(uint32_t));
    if (rc)
        return def_fail(s, rc, "rma window", self);
    for (uint32_t i = s->ev.t->nwins; i < n; i++)
        s->ev.t->win_comm[i] = LENS_NONE;
    s->ev.t->nwins = n;
    s->ev.t->win_comm[self] = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                 OTF2_StringRef descr, OTF2_Type type)
{
    struct state *s = u;
    (void)descr, (void)type;
    /* names are resolved after all strings are read */
    /* Attributes beyond 64 are ignored: we look for three of our own, and writers define a
     * handful. */
    if (s->nattr < 64) {
        s->attr_id[s->nattr] = self;
        s->attr_name[s->nattr++] = name;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- mapping of communicators to world ranks ---- */

/* Linear: called once per group member at load time, and locations are few (one per thread). */
static int rank_of_location(const struct state *s, uint64_t loc)
{
    for (size_t i = 0; i < s->nlocs; i++)
        if (s->locs[i].id == loc)
            return s->locs[i].rank;
    return -1;
}

/* Fills c from OTF2 group g (COMM_GROUP members index the COMM_LOCATIONS group). */
static int map_group(struct state *s, uint64_t g, struct lens_trace_comm *c)
{
    /* Identity mapping is the right guess for an unknown group: traces with a single
     * MPI_COMM_WORLD often define it loosely, and its ranks are the world ranks. */
    if (g >= s->ngroups_def || !s->group_type[g])
        return LENS_OK; /* unknown: identity */
    OTF2_GroupType type = (OTF2_GroupType)(s->group_type[g] - 1);
    if (type == OTF2_GROUP_TYPE_COMM_SELF) {
        c->self = 1;
        return LENS_OK;
    }
    /* Score-P and our writer write communicator groups (COMM_GROUP) as indices into one
     * COMM_LOCATIONS group, which lists the locations in world-rank order; find it once for the
     * mapping below. */
    const uint64_t *locs = NULL;
    uint32_t nlocs = 0;
    for (uint32_t i = 0; i < s->ngroups_def; i++)
        if (s->group_type[i] == (uint64_t)OTF2_GROUP_TYPE_COMM_LOCATIONS + 1) {
            locs = s->group_members[i];
            nlocs = s->group_nmembers[i];
            break;
        }
    uint32_t n = s->group_nmembers[g];
    if (!n)
        return LENS_OK;
    if (!(c->world = lens_malloc((size_t)n * sizeof(int32_t))))
        return fail(s, LENS_ENOMEM, "out of memory mapping group %llu", (unsigned long long)g);
    c->size = n;
    for (uint32_t r = 0; r < n; r++) {
        uint64_t m = s->group_members[g][r];
        /* Three encodings of members: indices into COMM_LOCATIONS (Score-P and our writer),
         * location ids (LOCATIONS, COMM_LOCATIONS), or plain world ranks (any other group
         * type). A member that maps to nothing is -1, so a message to it stays unmatched
         * instead of going to a wrong rank. */
        if (type == OTF2_GROUP_TYPE_COMM_GROUP && locs)
            c->world[r] = m < nlocs ? rank_of_location(s, locs[m]) : -1;
        else if (type == OTF2_GROUP_TYPE_LOCATIONS || type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            c->world[r] = rank_of_location(s, m);
        else
            c->world[r] = m < (uint64_t)s->ev.t->nranks ? (int32_t)m : -1;
    }
    return LENS_OK;
}

static int map_comms(struct state *s)
{
    struct lens_trace *t = s->ev.t;
    /* ranks: one per process location group, in group-id order (Score-P: id == rank) */
    /* World ranks are the location groups (processes) sorted by id: Score-P numbers its process
     * groups by rank and our writer does too, so sorting recovers the rank without reading any
     * rank attribute. Quadratic in processes, which is cheap next to reading their events. */
    uint64_t *gids = lens_malloc((s->nlocs + 1) * sizeof *gids);
    if (!gids)
        return fail(s, LENS_ENOMEM, "out of memory");
    size_t ng = 0;
    for (size_t i = 0; i < s->nlocs; i++) {
        size_t j = 0;
        while (j < ng && gids[j] != s->locs[i].group)
            j++;
        if (j == ng)
            gids[ng++] = s->locs[i].group;
    }
    for (size_t i = 1; i < ng; i++) /* insertion sort: few groups */
        for (size_t j = i; j > 0 && gids[j - 1] > gids[j]; j--) {
            uint64_t x = gids[j];
            gids[j] = gids[j - 1];
            gids[j - 1] = x;
        }
    for (size_t i = 0; i < s->nlocs; i++) { /* first thread of each group is the rank */
        size_t r = 0;
        while (gids[r] != s->locs[i].group)
            r++;
        /* Only the first thread seen of a process takes the rank; the others stay -1 and are
         * not read. */
        int taken = 0;
        for (size_t k = 0; k < i; k++)
            taken |= s->locs[k].rank == (int)r;
        if (!taken)
            s->locs[i].rank = (int)r;
    }
    lens_free(gids);
    t->nranks = (int)ng;
    if (ng == 0)
        return fail(s, LENS_EFORMAT, "no cpu-thread locations: not an mpi trace");
    if (!(t->ranks = lens_calloc(ng, sizeof *t->ranks)))
        return fail(s, LENS_ENOMEM, "out of memory");
    /* Communicators and groups both get world-rank tables: point-to-point records name
     * communicators, RMA group syncs name groups. */
    for (uint32_t c = 0; c < t->ncomms; c++)
        if (s->comm_group[c] && map_group(s, s->comm_group[c] - 1, &t->comms[c]))
            return s->ev.rc;
    t->ngroups = s->ngroups_def;
    if (t->ngroups && !(t->groups = lens_calloc(t->ngroups, sizeof *t->groups)))
        return fail(s, LENS_ENOMEM, "out of memory");
    for (uint32_t g = 0; g < t->ngroups; g++)
        if (map_group(s, g, &t->groups[g]))
            return s->ev.rc;
    return LENS_OK;
}

/* The three fallbacks mirror map_group: an unknown communicator or one without a table maps by
 * identity, MPI_COMM_SELF's rank 0 is the caller itself, and a rank outside the table is -1. */
int32_t lens_trace_world_rank(const struct lens_trace *t, uint32_t comm, uint32_t r, int me)
{
    if (comm >= t->ncomms)
        return r < (uint32_t)t->nranks ? (int32_t)r : -1;
    const struct lens_trace_comm *c = &t->comms[comm];
    if (c->self)
        return r == 0 ? me : -1;
    if (!c->world)
        return r < (uint32_t)t->nranks ? (int32_t)r : -1;
    return r < c->size ? c->world[r] : -1;
}

/* "?" rather than NULL: names go straight into messages and reports, and a damaged region id
 * must not crash them. */
const char *lens_trace_region_name(const struct lens_trace *t, uint32_t idx)
{
    return idx < t->nregions && t->regions[idx] ? t->regions[idx] : "?";
}

/* libotf2 prints its errors to stderr by default; below main nothing may print (house rule), so
 * the handler only passes the code through. */
static OTF2_ErrorCode quiet_errors(void *u, const char *file, uint64_t line, const char *fn,
                                   OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)u, (void)file, (void)line, (void)fn, (void)fmt, (void)va;
    return code; /* the caller turns the returned code into a lens_err */
}

/* A callback that interrupted the reading already recorded the real cause; OTF2's own code
 * would then only say "interrupted", so the first message wins. */
static int otf2_fail(struct state *s, OTF2_ErrorCode rc, const char *what)
{
    if (s->ev.rc)
        return s->ev.rc;
    return fail(s, LENS_EFORMAT, "%s: %s", what, OTF2_Error_GetDescription(rc));
}

static int read_globals(struct state *s, OTF2_Reader *rd)
{
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gd)
        return fail(s, LENS_EFORMAT, "cannot read the global definitions (traces.def)");
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb)
        return fail(s, LENS_ENOMEM, "out of memory");
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_win);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attr);
    /* Registering copies the callback set, so it is deleted right away. */
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, cb, s);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n);
    OTF2_Reader_CloseGlobalDefReader(rd, gd);
    if (rc != OTF2_SUCCESS)
        return otf2_fail(s, rc, "global definitions");
    /* Without clock properties there is no resolution to turn ticks into seconds. */
    if (s->ev.t->resolution <= 0)
        return fail(s, LENS_EFORMAT, "no clock properties in the global definitions");
    /* region and attribute names, resolved now that every string is known */
    struct lens_trace *t = s->ev.t;
    /* Our attributes are found by name, as their ids depend on the writer's definition order. */
    for (int i = 0; i < s->nattr; i++) {
        uint32_t id = s->attr_name[i];
        const char *nm = id < t->nstrings && t->strings[id] ? t->strings[id] : "";
        if (!strcmp(nm, LENS_OTF2_ATTR_MODULE))
            s->ev.attr_module = s->attr_id[i];
        if (!strcmp(nm, LENS_OTF2_ATTR_OFFSET))
            s->ev.attr_offset = s->attr_id[i];
        if (!strcmp(nm, LENS_OTF2_ATTR_WINDOW))
            s->ev.attr_window = s->attr_id[i];
    }
    if (t->nregions && !(t->regions = lens_calloc(t->nregions, sizeof(char *))))
        return fail(s, LENS_ENOMEM, "out of memory");
    /* Only defined regions get a name (class 0 is a hole in the ids); lens_trace_region_name
     * turns the holes into "?". */
    for (uint32_t i = 0; i < t->nregions; i++) {
        if (!s->ev.region_mpi[i])
            continue;
        uint32_t id = s->region_name[i];
        const char *nm = id < t->nstrings && t->strings[id] ? t->strings[id] : "?";
        if (!(t->regions[i] = lens_strdup(nm)))
            return fail(s, LENS_ENOMEM, "out of memory");
        if (!strncmp(nm, "MPI_", 4))
            s->ev.region_mpi[i] = 2; /* an MPI call even when the paradigm is not set */
    }
    return map_comms(s);
}

/* One rank at a time: local definitions (clock offsets) first, since seconds() needs them for
 * the events that follow. The event callbacks are shared by all ranks; lens_otf2evt_begin
 * resets the per-rank state. */
static int read_rank(struct state *s, OTF2_Reader *rd, const struct loc *l,
                     OTF2_EvtReaderCallbacks *cb)
{
    lens_otf2evt_begin(&s->ev, l->rank);
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, l->id);
    if (dr) {
        OTF2_DefReaderCallbacks *dcb = lens_otf2evt_def_callbacks();
        if (!dcb)
            return fail(s, LENS_ENOMEM, "out of memory");
        /* As with the global callbacks, OTF2 copies the set on registration. */
        OTF2_Reader_RegisterDefCallbacks(rd, dr, dcb, &s->ev);
        OTF2_DefReaderCallbacks_Delete(dcb);
        uint64_t n = 0;
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
        if (rc != OTF2_SUCCESS)
            return otf2_fail(s, rc, "local definitions");
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
    if (!er)
        return fail(s, LENS_EFORMAT, "no event file for rank %d", s->ev.rank);
    /* OTF2 would apply the offsets itself; we do (seconds()) so the model is ours, tested */
    OTF2_EvtReader_ApplyClockOffsets(er, false);
    OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, &s->ev);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
    OTF2_Reader_CloseEvtReader(rd, er);
    if (rc != OTF2_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "events of rank %d", s->ev.rank);
        return otf2_fail(s, rc, what);
    }
    lens_otf2evt_end(&s->ev, n);
    return LENS_OK;
}

/* libotf2 (2.3) callocs 2 * (number of properties) pointers straight from the anchor file,
 * so a damaged or crafted anchor of a few hundred bytes makes it allocate gigabytes (found by
 * tests/fuzz/fuzz_otf2). Before the library sees the file, walk the anchor's fixed layout as
 * OTF2 writes it (chunk header 0x03, endianness 0x42 little / 0x23 big, "OTF2\0", the anchor
 * format, 38 bytes of fixed fields, machine, creator and description strings, then the
 * uint32 property count) and refuse a count the file cannot hold: each property is two
 * NUL-terminated strings. A layout we do not recognise is left to libotf2's own checks. */
#define ANCHOR_MAX_BYTES (16u << 20) /* real anchors are a few hundred bytes */
static int check_anchor(struct state *s, const char *anchor)
{
    FILE *f = fopen(anchor, "rb");
    if (!f)
        return LENS_OK; /* OTF2_Reader_Open reports the missing file */
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    struct stat st;
    int known = fstat(fileno(f), &st) == 0;
    fclose(f);
    if (!known)
        return LENS_OK;
    if ((unsigned long long)st.st_size > ANCHOR_MAX_BYTES)
        return fail(s, LENS_EFORMAT, "anchor file is larger than %u bytes: not an otf2 anchor",
                    ANCHOR_MAX_BYTES);
    if (n < 8 || buf[0] != 0x03 || (buf[1] != 0x42 && buf[1] != 0x23) || memcmp(buf + 2, "OTF2", 5))
        return LENS_OK;
    size_t at = 7;
    unsigned format = buf[at++];
    at += 38;
    /* Strings are skipped by their terminating NUL; buf is the first 4 KiB only, which holds
     * every anchor we have seen (a few hundred bytes). */
    for (int str = 0; str < 3; str++) { /* machine, creator, description */
        const unsigned char *z = at < n ? memchr(buf + at, 0, n - at) : NULL;
        if (!z)
            return LENS_OK; /* truncated, or strings past 4 KiB: libotf2 checks the rest */
        at = (size_t)(z - buf) + 1;
    }
    /* Anchor formats before 2 have no property list to check. */
    if (format < 2 || at + 4 > n)
        return LENS_OK;
    uint32_t props = buf[1] == 0x42
        ? (uint32_t)buf[at] | (uint32_t)buf[at + 1] << 8 | (uint32_t)buf[at + 2] << 16 | (uint32_t)buf[at + 3] << 24
        : (uint32_t)buf[at + 3] | (uint32_t)buf[at + 2] << 8 | (uint32_t)buf[at + 1] << 16 | (uint32_t)buf[at] << 24;
    /* Each property takes at least two bytes (two empty strings), so more properties than half
     * the remaining bytes cannot be real. */
    unsigned long long room = (unsigned long long)st.st_size - (at + 4);
    if (props > room / 2)
        return fail(s, LENS_EFORMAT, "anchor file declares %u properties, but holds %llu bytes after the count",
                    props, room);
    return LENS_OK;
}

/* The order is fixed by OTF2: globals (which say which locations exist), then select the ranks'
 * locations, then open their definition and event files and read rank by rank. Every exit goes
 * through "out" so the reader and callbacks are released on any failure. */
static int read_archive(struct state *s, const char *anchor)
{
    int grc = check_anchor(s, anchor);
    if (grc != LENS_OK)
        return grc;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return fail(s, LENS_EFORMAT, "not an otf2 archive or damaged anchor file");
    int rc = LENS_OK;
    OTF2_EvtReaderCallbacks *cb = NULL;
    /* The reader runs in one process: OTF2 needs serial "collective" callbacks even so. */
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
        rc = fail(s, LENS_EFORMAT, "cannot set up the otf2 reader");
        goto out;
    }
    char *creator = NULL;
    if (OTF2_Reader_GetCreator(rd, &creator) == OTF2_SUCCESS && creator) {
        /* Our own traces end every rank with MPI_Finalize unless the run crashed, which lets
         * lens_trace_ends judge early ends strictly (see there). */
        s->ev.t->ours = !strncmp(creator, "mpilens", 7);
        free(creator); /* OTF2 hands over a malloc'ed copy */
    }
    /* The collector's provenance properties: a missing one is an older or foreign trace, not
     * an error. OTF2 hands over malloc'ed copies; ours go through lens_strdup so that
     * lens_trace_free releases every field alike. */
    static const char *const prop[] = LENS_OTF2_PROP_NAMES;
    for (int k = 0; k < LENS_OTF2_NPROP && rc == LENS_OK; k++) {
        char *v = NULL;
        if (OTF2_Reader_GetProperty(rd, prop[k], &v) == OTF2_SUCCESS && v && *v &&
            !(s->ev.t->prov[k] = lens_strdup(v)))
            rc = fail(s, LENS_ENOMEM, "out of memory");
        free(v);
    }
    if (rc != LENS_OK)
        goto out;
    if ((rc = read_globals(s, rd)))
        goto out;
    /* Only ranks' master threads are selected, so OTF2 does not open files of threads we skip. */
    for (size_t i = 0; i < s->nlocs; i++)
        if (s->locs[i].rank >= 0)
            OTF2_Reader_SelectLocation(rd, s->locs[i].id);
    /* an archive without local definition files is fine; missing event files are not */
    int defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        rc = fail(s, LENS_EFORMAT, "cannot open the event files");
        goto out;
    }
    if (!(cb = lens_otf2evt_callbacks())) {
        rc = fail(s, LENS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s->nlocs && !rc; i++)
        if (s->locs[i].rank >= 0)
            rc = read_rank(s, rd, &s->locs[i], cb);
    if (defs)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
out:
    if (cb)
        OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(rd);
    return rc;
}

int lens_trace_read(const char *path, struct lens_trace **out, struct lens_err *e)
{
    return lens_trace_read_flags(path, 0, out, e);
}

/* A directory or its anchor file are both accepted; both stats run before OTF2 so a missing
 * trace is an I/O error naming the path, not a format error from the library. */
int lens_trace_read_flags(const char *path, unsigned flags, struct lens_trace **out,
                          struct lens_err *e)
{
    *out = NULL;
    char anchor[4096];
    struct stat st;
    if (stat(path, &st) != 0)
        return lens_err_set(e, LENS_EIO, "%s: cannot open trace: no such file or directory", path);
    if (S_ISDIR(st.st_mode))
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
    else
        snprintf(anchor, sizeof anchor, "%s", path);
    if (stat(anchor, &st) != 0 || !S_ISREG(st.st_mode))
        return lens_err_set(e, LENS_EIO, "%s: cannot open trace: no traces.otf2 anchor file", path);
    struct state s = {0};
    s.ev.e = e;
    s.ev.path = anchor;
    s.ev.flags = flags;
    s.ev.attr_module = s.ev.attr_offset = s.ev.attr_window = LENS_NONE;
    if (!(s.ev.t = lens_calloc(1, sizeof *s.ev.t)))
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", anchor);
    /* OTF2's error callback is process-global: the previous one is restored so an embedding
     * program keeps its handler. */
    OTF2_ErrorCallback prev = OTF2_Error_RegisterCallback(quiet_errors, NULL);
    int rc = read_archive(&s, anchor);
    OTF2_Error_RegisterCallback(prev, NULL);
    /* The definition tables are only needed while reading; the trace keeps its own copies. */
    lens_free(s.locs);
    lens_free(s.region_name);
    lens_free(s.ev.region_mpi);
    lens_free(s.comm_group);
    for (uint32_t i = 0; i < s.ngroups_def; i++)
        lens_free(s.group_members[i]);
    lens_free(s.group_members);
    lens_free(s.group_type);
    lens_free(s.group_nmembers);
    lens_free(s.ev.clock);
    if (rc) {
        lens_trace_free(s.ev.t);
        return rc;
    }
    *out = s.ev.t;
    return LENS_OK;
}

/* Decides which ranks' traces end early (a crash loses the tail of some ranks): a rank without
 * events is early when any rank has events; when any rank reached MPI_Finalize (or the trace is
 * ours, where every rank calls it) a rank without Finalize is early; otherwise a rank whose
 * last event is more than 10 % of the run before the latest one is. Returns the number of early
 * ranks. */
int lens_trace_ends(const struct lens_trace *t, struct lens_trace_end *out, double *t_end)
{
    int any_events = 0, any_final = 0, early = 0;
    double first = 0, last = 0;
    for (int r = 0; r < t->nranks; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        struct lens_trace_end *o = &out[r];
        memset(o, 0, sizeof *o);
        o->nevents = k->nevents;
        if (!k->nevents)
            continue;
        o->t_last = k->t_last;
        /* the Finalize call is the last or nearly the last one: search from the end */
        for (uint32_t c = k->ncalls; c-- > 0 && !o->finalized;)
            o->finalized = !strcmp(lens_trace_region_name(t, k->calls[c].region), "MPI_Finalize");
        if (!any_events || k->t_first < first)
            first = k->t_first;
        if (!any_events || k->t_last > last)
            last = k->t_last;
        any_events = 1;
        any_final |= o->finalized;
    }
    for (int r = 0; r < t->nranks; r++) {
        struct lens_trace_end *o = &out[r];
        if (!o->nevents)
            o->early = any_events;
        /* Score-P traces may filter MPI_Finalize out, so its absence alone proves nothing
         * there; the 10 % threshold then separates a crash from ranks that just finish at
         * slightly different times. */
        else if (any_final || t->ours)
            o->early = !o->finalized;
        else
            o->early = last - o->t_last > 0.1 * (last - first);
        early += o->early;
    }
    *t_end = last;
    return early;
}

/* snprintf that appends to buf[*len] and never runs past n. */
static void cat(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cat(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    if (*len >= n)
        return;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    *len = w < 0 ? n : *len + (size_t)w < n ? *len + (size_t)w : n;
}

/* The event counts and the early-end warning as text for the commands: per rank up to 16 ranks,
 * beyond that the extremes only, and at most 8 early ranks named, so the line stays readable. */
int lens_trace_ends_text(const struct lens_trace *t, char *counts, size_t ncounts, char *warning,
                         size_t nwarning)
{
    struct lens_trace_end *o = lens_calloc((size_t)t->nranks + 1, sizeof *o);
    size_t lc = 0, lw = 0;
    double t_end = 0;
    if (!o)
        return LENS_ENOMEM;
    int early = lens_trace_ends(t, o, &t_end);
    counts[0] = warning[0] = '\0';
    cat(counts, ncounts, &lc, "events per rank:");
    if (t->nranks <= 16) {
        for (int r = 0; r < t->nranks; r++)
            cat(counts, ncounts, &lc, " %d=%llu", r, (unsigned long long)o[r].nevents);
    } else {
        int lo = 0, hi = 0;
        for (int r = 1; r < t->nranks; r++) {
            lo = o[r].nevents < o[lo].nevents ? r : lo;
            hi = o[r].nevents > o[hi].nevents ? r : hi;
        }
        cat(counts, ncounts, &lc, " min %llu (rank %d), max %llu (rank %d), %llu in all %d ranks",
            (unsigned long long)o[lo].nevents, lo, (unsigned long long)o[hi].nevents, hi,
            (unsigned long long)t->nevents, t->nranks);
    }
    if (early) {
        int shown = 0, nofinal = 0;
        for (int r = 0; r < t->nranks; r++)
            nofinal += o[r].early && o[r].nevents && !o[r].finalized;
        cat(warning, nwarning, &lw, "the trace of %d of %d ranks ends early (%s; the run crashed "
            "or was killed and their later events are lost): ", early, t->nranks,
            nofinal ? "no MPI_Finalize" : "no events");
        for (int r = 0; r < t->nranks; r++) {
            if (!o[r].early)
                continue;
            if (shown++ == 8) {
                cat(warning, nwarning, &lw, ", and %d more", early - 8);
                break;
            }
            if (o[r].nevents)
                cat(warning, nwarning, &lw, "%srank %d kept until %.6f s (%llu events)",
                    shown > 1 ? ", " : "", r, o[r].t_last, (unsigned long long)o[r].nevents);
            else
                cat(warning, nwarning, &lw, "%srank %d kept no events", shown > 1 ? ", " : "", r);
        }
        cat(warning, nwarning, &lw, "; the last event of any rank is at %.6f s", t_end);
    }
    lens_free(o);
    return early;
}

/* Communicators and groups share the table type; both own their world-rank arrays. */
static void free_comms(struct lens_trace_comm *c, uint32_t n)
{
    for (uint32_t i = 0; c && i < n; i++)
        lens_free(c[i].world);
    lens_free(c);
}

/* Tolerates a trace half built by a failed read: every array may be NULL, and counts only cover
 * what was allocated. */
void lens_trace_free(struct lens_trace *t)
{
    if (!t)
        return;
    for (int r = 0; t->ranks && r < t->nranks; r++) {
        lens_free(t->ranks[r].calls);
        lens_free(t->ranks[r].recs);
        lens_free(t->ranks[r].revs);
    }
    lens_free(t->ranks);
    for (uint32_t i = 0; t->strings && i < t->nstrings; i++)
        lens_free(t->strings[i]);
    lens_free(t->strings);
    for (uint32_t i = 0; t->regions && i < t->nregions; i++)
        lens_free(t->regions[i]);
    lens_free(t->regions);
    lens_free(t->sites);
    free_comms(t->comms, t->ncomms);
    free_comms(t->groups, t->ngroups);
    lens_free(t->win_comm);
    for (int k = 0; k < LENS_OTF2_NPROP; k++)
        lens_free(t->prov[k]);
    lens_free(t);
}
