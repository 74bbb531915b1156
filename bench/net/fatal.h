/* The one fatal-error path of mpilens-bench: once ranks are measuring, an error on one rank
 * (a failed write on rank 0, an allocation, an MPI error) cannot be agreed on collectively,
 * so it is printed with the rank and the whole job is ended with MPI_Abort. Never exit():
 * that leaves the other ranks hanging (OSU's MPI_CHECK bug). */
#ifndef LENS_BENCH_FATAL_H
#define LENS_BENCH_FATAL_H

#include "common/err.h"

/* Prints "mpilens-bench: rank R: <message>" to stderr and calls MPI_Abort(MPI_COMM_WORLD, 1).
 * Does not return. */
void lens_bench_fatal(const struct lens_err *e) __attribute__((noreturn));

#endif
