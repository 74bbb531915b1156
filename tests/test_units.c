/* common/units: the one number formatter of the PDFs, checked against strings written out by
 * hand (significant digits, the rounding carry, SI prefixes, µs, plurals, no exponent). */
#include <math.h>
#include <string.h>

#include "common/units.h"
#include "lens_test.h"

#define EQ(got, want) LENS_TEST(!strcmp((got), (want)), "got '%s' want '%s'", (got), (want))

int main(void)
{
    char b[64];
    lens_units_num(0.48601, 4, b, sizeof b); EQ(b, "0.4860");
    lens_units_num(11.4, 4, b, sizeof b); EQ(b, "11.40");
    lens_units_num(30.020573, 4, b, sizeof b); EQ(b, "30.02");
    lens_units_num(2484.6, 4, b, sizeof b); EQ(b, "2485");
    lens_units_num(123456.7, 4, b, sizeof b); EQ(b, "123457");
    /* 9.9996 rounds to 10.00: four digits, not "10.000" */
    lens_units_num(9.9996, 4, b, sizeof b); EQ(b, "10.00");
    lens_units_num(0.00099996, 4, b, sizeof b); EQ(b, "0.001000");
    lens_units_num(0, 4, b, sizeof b); EQ(b, "0.000");
    lens_units_num(-0.0001, 3, b, sizeof b); EQ(b, "-0.000100");
    lens_units_num(-3.06e-06, 3, b, sizeof b); EQ(b, "-3.06×10^-6");
    lens_units_num(9.9999e-7, 3, b, sizeof b); EQ(b, "1×10^-6");
    lens_units_num(4.66e-310, 3, b, sizeof b); EQ(b, "4.66×10^-310");
    lens_units_num(NAN, 4, b, sizeof b); EQ(b, "n/a");
    lens_units_num(-0.00004, 1, b, sizeof b); EQ(b, "-4×10^-5");

    lens_units_time(352e-9, b, sizeof b); EQ(b, "352.0 ns");
    lens_units_time(1.93412e-6, b, sizeof b); EQ(b, "1.934 µs");
    lens_units_time(4.1021e-3, b, sizeof b); EQ(b, "4.102 ms");
    lens_units_time(10.990434, b, sizeof b); EQ(b, "10.99 s");
    lens_units_time(0.99996e-3, b, sizeof b); EQ(b, "1.000 ms");
    lens_units_time(0, b, sizeof b); EQ(b, "0");
    lens_units_time(INFINITY, b, sizeof b); EQ(b, "n/a");

    lens_units_in(11.4e-6, 1e6, b, sizeof b); EQ(b, "11.40");
    lens_units_in(0.00068, 1, b, sizeof b); EQ(b, "0.0006800");

    lens_units_si(5.74e9, "B/s", b, sizeof b); EQ(b, "5.740 GB/s");
    lens_units_si(1234567, "/s", b, sizeof b); EQ(b, "1.235 M/s");
    lens_units_si(812.04, "", b, sizeof b); EQ(b, "812.0");
    lens_units_si(999.96, "B", b, sizeof b); EQ(b, "1.000 kB");
    lens_units_si(2e-6, "s", b, sizeof b); EQ(b, "2.000 µs");

    lens_units_percent(37.4412, b, sizeof b); EQ(b, "37.44%");
    lens_units_percent(100, b, sizeof b); EQ(b, "100.0%");
    lens_units_percent(99.999, b, sizeof b); EQ(b, "100.0%");
    lens_units_percent(1234.5, b, sizeof b); EQ(b, "1234%");
    lens_units_percent(0.004, b, sizeof b); EQ(b, "0.00%");
    char t1[] = "5.000", t2[] = "11.40", t3[] = "1000", t4[] = "0.0";
    lens_units_trim(t1); EQ(t1, "5");
    lens_units_trim(t2); EQ(t2, "11.4");
    lens_units_trim(t3); EQ(t3, "1000");
    lens_units_trim(t4); EQ(t4, "0");
    EQ(lens_units_plural(1, "host", "hosts"), "host");
    EQ(lens_units_plural(0, "host", "hosts"), "hosts");
    lens_units_count(4, "host", "hosts", b, sizeof b); EQ(b, "4 hosts");
    lens_units_count(1, "process", "processes", b, sizeof b); EQ(b, "1 process");
    /* a buffer too small is cut, never overrun */
    char s[5];
    lens_units_time(1.93412e-6, s, sizeof s); EQ(s, "1.93");
    return LENS_TEST_DONE("test_units");
}
