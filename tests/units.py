# The reports' number rule written again in Python, for the tests' independent references
# (common/units.h is the C side): `digits` significant digits in fixed notation, a power of
# ten below 1e-4, "n/a" when not finite.
import math


def num(v, digits=4):
    if not math.isfinite(v):
        return "n/a"
    a = abs(v)
    if a != 0 and a < 1e-4:
        ex = math.floor(math.log10(a))
        m = "%.*f" % (digits - 1, v / 10 ** ex)
        if abs(float(m)) >= 10:
            ex += 1
            m = "%.*f" % (digits - 1, v / 10 ** ex)
        if "." in m:
            m = m.rstrip("0").rstrip(".")
        return "%s×10^%d" % (m, ex)
    if a == 0:
        d = digits - 1
    else:
        mag = math.floor(math.log10(a))
        d = max(0, digits - 1 - mag)
        if d > 0 and float("%.*f" % (d, a)) >= 10 ** (mag + 1):
            d -= 1
    s = "%.*f" % (d, v)
    if s.startswith("-") and float(s) == 0:
        s = s[1:]
    return s


def time(s):
    """a duration in seconds with its unit, as lens_units_time"""
    if not math.isfinite(s):
        return "n/a"
    if s == 0:
        return "0"
    for scale, unit in ((1, "s"), (1e3, "ms"), (1e6, "µs"), (1e9, "ns")):
        if abs(s) * scale >= 0.9995 or unit == "ns":
            return num(s * scale) + " " + unit


def si(v, unit):
    """v with an SI prefix before unit, as lens_units_si"""
    if not math.isfinite(v):
        return "n/a"
    pre = ((1e-12, "T"), (1e-9, "G"), (1e-6, "M"), (1e-3, "k"), (1, ""), (1e3, "m"), (1e6, "µ"), (1e9, "n"))
    k = 4
    if v != 0:
        k = next((i for i, (sc, _) in enumerate(pre[:7]) if abs(v) * sc >= 0.9995), 7)
    sc, p = pre[k]
    return num(v * sc) + (" " + p + unit if p or unit else "")


def percent(p):
    """a share in percent with its sign, as lens_units_percent"""
    if not math.isfinite(p):
        return "n/a"
    return "%.*f%%" % (0 if abs(p) >= 999.95 else 1 if abs(p) >= 99.995 else 2, p)
