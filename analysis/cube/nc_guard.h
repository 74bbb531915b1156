/* The gate every NetCDF file of the project passes before libnetcdf sees it.
 *
 * libnetcdf 4.9.0 trusts the counts in a classic header: a 324-byte file that declares 67
 * million dimensions makes nc_open allocate gigabytes (and crash in its name hashmap when the
 * allocation fails), and names are not checked at all. lens_nc_guard_check reads the header
 * itself, from the file, and refuses anything the format (the NetCDF classic format
 * specification: CDF-1 "CDF\x01", CDF-2 64-bit offset "CDF\x02", CDF-5 "CDF\x05") or the file
 * size rules out, so that what the library allocates is bounded by the size of the file.
 *
 * Classic files, checked: the magic; numrecs; every list tag and count, each count bounded by
 * the bytes left in the file (an entry takes at least 12 bytes); every name (1 to NC_MAX_NAME
 * bytes of valid UTF-8, no control character, no '/', unique among the dimensions, among the
 * variables and within each attribute list); dimension sizes (non-negative, one record
 * dimension at most); attribute types and value lengths; each variable's rank (at most
 * NC_MAX_VAR_DIMS), its dimension ids (in range, the record dimension first), type, vsize
 * (agrees with its shape) and begin (after the header); and that the file holds every
 * variable and numrecs records (the library would fill a truncated file's missing records
 * with fill values without complaint). All arithmetic on header values is overflow-checked.
 * Not checked: the values of attributes and variables, header padding bytes, overlapping
 * variables.
 *
 * NetCDF-4 (HDF5) files: only the signature (at 0 or 512 * 2^k), the superblock version and
 * field sizes and its end-of-file address against the file size (truncation) are checked. The
 * HDF5 library parses the object headers, B-trees and attributes itself: those are not
 * validated here. Anything else is "not a readable NetCDF file".
 *
 * Messages name the file: "x_median.nc: not a readable NetCDF file: the header declares
 * 67108864 dimensions, but the file holds 324 bytes". Nothing here prints or exits. */
#ifndef LENS_NC_GUARD_H
#define LENS_NC_GUARD_H

#include <stddef.h>

#include "common/err.h"

/* Checks path as above. LENS_OK, LENS_EIO (cannot open or read) or LENS_EFORMAT. Memory used
 * is about the size of the header. */
int lens_nc_guard_check(const char *path, struct lens_err *e);

/* The one way the project opens a NetCDF file for reading: lens_nc_guard_check, then
 * nc_open(path, NC_NOWRITE). *id is a NetCDF id the caller closes with nc_close; -1 on
 * failure. Errors as lens_nc_guard_check, and LENS_EFORMAT when the library refuses the file. */
int lens_nc_guard_open(const char *path, int *id, struct lens_err *e);

/* Whether s[0..n) is valid UTF-8 (no overlong forms, surrogates or code points above
 * U+10FFFF, no NUL byte): names and host names must be, or JSON output breaks. */
int lens_nc_guard_utf8(const char *s, size_t n);

#endif
