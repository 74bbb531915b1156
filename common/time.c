/* Clocks and dates (common/time.h): the monotonic clock for durations, and the one date stamped
 * into outputs, taken from SOURCE_DATE_EPOCH when set so that two runs give the same bytes. */
#include "common/time.h"
#include "common/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double lens_time_now(void)
{
    struct timespec ts;
    /* CLOCK_MONOTONIC, not the wall clock: durations must not jump when NTP steps the time. */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long long lens_time_source_date(void)
{
    /* The reproducible-builds convention: a decimal count of seconds since 1970. A malformed
     * value (trailing text, negative, out of range) is ignored rather than half-parsed, and the
     * current time is used. */
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (s && *s) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == 0 && end && *end == '\0' && v >= 0)
            return v;
    }
    return (long long)time(NULL);
}

void lens_time_format_date(long long t, char *buf, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    /* UTC and gmtime_r: the stamp must not depend on TZ or the locale, or outputs made with the
     * same SOURCE_DATE_EPOCH would differ between machines. */
    gmtime_r(&tt, &tm);
    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void lens_time_format_duration(double s, char *buf, size_t n)
{
    /* One voice with the PDFs: the prefix by magnitude, four significant digits, "µs"
     * (common/units.h). */
    lens_units_time(s, buf, n);
}
