/* The PMPI trace collector (libmpilens-trace.so): wrappers for point-to-point, Wait/Test,
 * collective, one-sided, communicator, Init and Finalize calls. Each wrapped call appends one
 * fixed-size struct lens_trace_rec (trace_otf2.h) to a preallocated buffer; a full buffer is
 * written to DIR/raw/<rank>.evt; MPI_Finalize writes the OTF2 archive from the raw files.
 *
 * Environment:
 *   MPILENS_TRACE_DIR     trace directory (default ./mpilens-trace)
 *   MPILENS_TRACE_BUFFER  buffer bytes per rank, suffix k/M/G allowed (default 1M, min 1k):
 *                         the collector's only memory that grows with the run
 *   MPILENS_TRACE_STATS=1 each rank appends the time of its phases to DIR/stats.txt
 *   MPILENS_TRACE_FLUSH_SEC  seconds between time-driven flushes (default 1; 0 = every call):
 *                         a SIGKILLed rank loses at most the events of that interval
 *   MPILENS_TRACE_KEEP_RAW=1  keep raw/ after the archive is written (also after a recovery)
 * Crash signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT) flush the buffer
 * with write(2) and are then handed to the disposition they had before MPI_Init.
 * Works by LD_PRELOAD or by linking before -lmpi. Only MPI_* symbols are exported. */
#ifndef LENS_TRACE_H
#define LENS_TRACE_H

#include <stddef.h>

#define LENS_TRACE_DEFAULT_DIR "mpilens-trace"
/* 1 MiB, not more: every page of the buffer faults once when first written, and flushing
 * 1 MiB at a time writes the same bytes with the buffer still in cache (200,000 records:
 * 6 ms of CPU with 8 MiB, 3 ms with 1 MiB; docs/trace.md "Overhead"). */
#define LENS_TRACE_DEFAULT_BUFFER (1u << 20)
#define LENS_TRACE_MIN_BUFFER 1024u
#define LENS_TRACE_DEFAULT_FLUSH_SEC 1.0
#define LENS_TRACE_SYNC_ROUNDS 20   /* ping-pongs per rank for each clock measurement */

/* Parses a MPILENS_TRACE_BUFFER value ("65536", "64k", "8M", "1G"); 0 when malformed. */
size_t lens_trace_parse_size(const char *s);

#endif
