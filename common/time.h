/* Clocks and dates: a monotonic clock for durations, and the date stamped into outputs, which
 * comes from SOURCE_DATE_EPOCH when set so that outputs are reproducible. */
#ifndef LENS_TIME_H
#define LENS_TIME_H

#include <stddef.h>

/* Seconds on a monotonic clock. */
double lens_time_now(void);
/* Seconds since 1970 (UTC): SOURCE_DATE_EPOCH when set and valid, else the current time, so
 * that outputs are reproducible. */
long long lens_time_source_date(void);
/* Formats t (UTC) as "YYYY-MM-DD HH:MM:SS UTC" into buf. */
void lens_time_format_date(long long t, char *buf, size_t n);

/* A duration in seconds for people: "352.0 ns", "1.934 µs", "4.102 ms", "12.35 s", "n/a" if
 * not finite (lens_units_time, common/units.h). */
void lens_time_format_duration(double s, char *buf, size_t n);

#endif
