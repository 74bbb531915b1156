/* Numbers with units for people (common/units.h): every PDF and the text lines that share its
 * words format numbers here, so that a value reads the same in a table, a caption and a
 * sentence. */
#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimals that give v `digits` significant digits, after rounding: 9.9996 at 4 digits
 * rounds to 10.00, one decimal fewer than its magnitude before rounding suggests. */
static int decimals_for(double v, int digits)
{
    double a = fabs(v);
    if (a == 0)
        return digits - 1;
    /* mag is the power of ten of the leading digit: 0.486 -> -1, 11.4 -> 1 */
    int mag = (int)floor(log10(a));
    int d = digits - 1 - mag;
    if (d < 0) /* a large integer keeps all its digits: rounding 123457 to "123500" would lie */
        return 0;
    /* printf rounds; asking it is the only way to see the carry its rounding makes */
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*f", d, a);
    if (d > 0 && strtod(tmp, NULL) >= pow(10.0, mag + 1))
        d--;
    return d;
}

void lens_units_trim(char *num)
{
    /* only a fixed number with a decimal point: "1000" must keep its zeros */
    if (!strchr(num, '.'))
        return;
    size_t k = strlen(num);
    while (k > 0 && num[k - 1] == '0')
        num[--k] = '\0';
    if (k > 0 && num[k - 1] == '.')
        num[--k] = '\0';
}

void lens_units_num(double v, int digits, char *buf, size_t n)
{
    /* a double holds 15-17 significant digits: more would print noise */
    if (digits < 1)
        digits = 1;
    if (digits > 15)
        digits = 15;
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    double a = fabs(v);
    if (a != 0 && a < 1e-4) {
        /* A power of ten instead of "e-06": the mantissa keeps the digits, the exponent is
         * written as a reader writes it. */
        int ex = (int)floor(log10(a));
        double m = v / pow(10.0, ex);
        char ms[32];
        snprintf(ms, sizeof ms, "%.*f", digits - 1, m);
        /* rounding may carry the mantissa to 10.0: move it into the exponent */
        if (fabs(strtod(ms, NULL)) >= 10.0) {
            ex++;
            snprintf(ms, sizeof ms, "%.*f", digits - 1, m / 10.0);
        }
        /* trailing zeros of the mantissa go ("-1×10^-4"): the form is already wider than a
         * fixed number and must fit a table column */
        lens_units_trim(ms);
        snprintf(buf, n, "%s×10^%d", ms, ex);
        return;
    }
    int d = decimals_for(v, digits);
    snprintf(buf, n, "%.*f", d, v);
    /* "-0.000" reads as a sign with no value: a negative zero (a difference of equal values)
     * is written without its sign */
    if (buf[0] == '-' && strtod(buf, NULL) == 0)
        memmove(buf, buf + 1, strlen(buf));
}

void lens_units_time(double s, char *buf, size_t n)
{
    /* seconds from 1 up, then the smallest prefix that keeps the number at or above 1 */
    static const struct { double scale; const char *unit; } u[] = {
        {1, "s"}, {1e3, "ms"}, {1e6, "µs"}, {1e9, "ns"}};
    if (!isfinite(s)) {
        snprintf(buf, n, "n/a");
        return;
    }
    if (s == 0) {
        /* nothing needs no unit, and "0 s" set right-aligned in a narrow cell reads back as
         * "0s" from poppler */
        snprintf(buf, n, "0");
        return;
    }
    /* 0.9995, not 1: such a value rounds to 1.000 at four digits, so 999.96 µs is written
     * "1.000 ms" and never "1000 µs"; below 1 ns the nanoseconds stay (no clock resolves less) */
    int k = 0;
    while (k < 3 && fabs(s) * u[k].scale < 0.9995)
        k++;
    char num[64];
    lens_units_num(s * u[k].scale, LENS_UNITS_DIGITS, num, sizeof num);
    snprintf(buf, n, "%s %s", num, u[k].unit);
}

void lens_units_in(double s, double scale, char *buf, size_t n)
{
    lens_units_num(s * scale, LENS_UNITS_DIGITS, buf, n);
}

void lens_units_si(double v, const char *unit, char *buf, size_t n)
{
    /* largest prefix first; the scale multiplies the value into the prefix's unit */
    static const struct { double scale; const char *prefix; } p[] = {
        {1e-12, "T"}, {1e-9, "G"}, {1e-6, "M"}, {1e-3, "k"}, {1, ""}, {1e3, "m"}, {1e6, "µ"}, {1e9, "n"}};
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    int k = 4;
    if (v != 0) {
        /* the largest prefix under which the number is at least 1 (0.9995 rounds up to 1.000) */
        for (k = 0; k < 7; k++)
            if (fabs(v) * p[k].scale >= 0.9995)
                break;
    }
    char num[64];
    lens_units_num(v * p[k].scale, LENS_UNITS_DIGITS, num, sizeof num);
    if (*p[k].prefix || *unit)
        snprintf(buf, n, "%s %s%s", num, p[k].prefix, unit);
    else
        snprintf(buf, n, "%s", num);
}

void lens_units_percent(double pct, char *buf, size_t n)
{
    if (!isfinite(pct))
        snprintf(buf, n, "n/a");
    else
        /* the thresholds are where printf's rounding adds a digit: 99.996 at two decimals
         * would print "100.00", five digits */
        snprintf(buf, n, "%.*f%%", fabs(pct) >= 999.95 ? 0 : fabs(pct) >= 99.995 ? 1 : 2, pct);
}

/* English plurals only: the Russian templates keep their own wording (a count before
 * "случаях" needs three forms), so nothing here guesses a language. */
const char *lens_units_plural(long long count, const char *one, const char *many)
{
    return count == 1 ? one : many;
}

void lens_units_count(long long count, const char *one, const char *many, char *buf, size_t n)
{
    snprintf(buf, n, "%lld %s", count, lens_units_plural(count, one, many));
}
