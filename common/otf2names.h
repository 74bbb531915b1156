/* The names mpilens gives its own OTF2 attributes: one place for the writer (the trace
 * collector, bench/trace/trace_otf2.c) and the reader (analysis/trace/trace.c), so a renamed or added
 * attribute cannot leave traces the reader no longer recognises. Plain strings, no OTF2 types:
 * either side includes this without pulling in the other. */
#ifndef LENS_OTF2NAMES_H
#define LENS_OTF2NAMES_H

/* OTF2_TYPE_STRING on every Enter of an MPI region: the ELF module of the call site */
#define LENS_OTF2_ATTR_MODULE "mpilens::callsite_module"
#define LENS_OTF2_ATTR_MODULE_DESCR "module path of the call site (ELF file)"
/* OTF2_TYPE_UINT64 beside it: the call site as an ELF virtual address in that module */
#define LENS_OTF2_ATTR_OFFSET "mpilens::callsite_offset"
#define LENS_OTF2_ATTR_OFFSET_DESCR "call site: return address - 1 - load bias (ELF vaddr)"
/* OTF2_TYPE_RMA_WIN on every Enter of an RMA region: the window of the call */
#define LENS_OTF2_ATTR_WINDOW "mpilens::window"
#define LENS_OTF2_ATTR_WINDOW_DESCR "RMA window of the call"

/* Trace file properties (OTF2_Archive_SetProperty, read back with OTF2_Reader_GetProperty):
 * how the traced run was made, the all-pairs cube's provenance under the same key names.
 * The collector writes rank 0's facts at MPI_Init into raw/0.defs ("prov KEY VALUE"), and the
 * conversion turns them into these properties. OTF2 allows [A-Z0-9_] after the namespace. */
#define LENS_OTF2_PROP_KEYS {"measured_at", "mpi_library_version", "launcher", "binding", "cores_per_host"}
#define LENS_OTF2_PROP_NAMES                                                                        \
    {"MPILENS::MEASURED_AT", "MPILENS::MPI_LIBRARY_VERSION", "MPILENS::LAUNCHER", "MPILENS::BINDING", \
     "MPILENS::CORES_PER_HOST"}
#define LENS_OTF2_NPROP 5

#endif
