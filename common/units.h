/* Numbers with units for people: the one formatter behind every table, caption and sentence
 * of the PDFs (and the text lines that share their words). One rule everywhere: at most
 * LENS_UNITS_DIGITS significant digits, fixed notation (never "e+06"), SI prefixes on times
 * and rates, "µs" (never "us"), and plurals chosen by the count (never "host(s)"). */
#ifndef LENS_UNITS_H
#define LENS_UNITS_H

#include <stddef.h>

#define LENS_UNITS_DIGITS 4 /* significant digits of every measured value */

/* v with `digits` significant digits (1..15) in fixed notation: "0.4860", "11.40", "2485";
 * integers of more digits are printed whole ("123457"), never as an exponent. Values below
 * 1e-4 in magnitude (other than 0) are written "3.06×10^-6": a fixed form would need more
 * zeros than digits; that mantissa drops trailing zeros ("-1×10^-4"). "n/a" when v is not
 * finite. buf always ends in NUL, cut to n bytes. */
void lens_units_num(double v, int digits, char *buf, size_t n);

/* Drops the trailing zeros of a fixed number in place, and its point when nothing follows:
 * "5.000" -> "5", "11.40" -> "11.4"; a number without a point is left alone. For limits
 * and labels that should read as a person wrote them. */
void lens_units_trim(char *num);

/* A duration in seconds with its unit, the prefix chosen by magnitude: "352.0 ns",
 * "1.934 µs", "4.102 ms", "12.35 s"; "0" for 0, "n/a" if not finite. The space between
 * number and unit is an ordinary space (the PDF wrapper keeps the pair on one line). */
void lens_units_time(double s, char *buf, size_t n);

/* A duration in seconds as a bare number in a fixed unit, for table cells under a header
 * that names the unit: scale 1e6 gives µs, 1e3 ms, 1 s. LENS_UNITS_DIGITS digits, "n/a" if
 * not finite. */
void lens_units_in(double s, double scale, char *buf, size_t n);

/* v with an SI prefix (n, µ, m, k, M, G, T) before unit: "5.740 GB/s" (unit "B/s"),
 * "1.234 M/s" (unit "/s"), "812.0 k" (unit ""); below 1000 and from 1 up, no prefix. */
void lens_units_si(double v, const char *unit, char *buf, size_t n);

/* A share already in percent with its sign: "37.44%", "0.46%", "100.0%": two decimals, one
 * from 100 up and none from 1000 up, so a share never shows more than 4 significant digits. */
void lens_units_percent(double pct, char *buf, size_t n);

/* one or many by the count: lens_units_plural(1, "host", "hosts") is "host". */
const char *lens_units_plural(long long count, const char *one, const char *many);
/* "1 host", "4 hosts": the count and its noun. */
void lens_units_count(long long count, const char *one, const char *many, char *buf, size_t n);

#endif
