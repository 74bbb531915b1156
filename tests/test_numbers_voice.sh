#!/usr/bin/env bash
# One voice for numbers (issue 14 item 3): every PDF mpilens writes (the cube report, the
# problems report, the scale report, the profiles report, compare and accept) is built from
# test data, read back with pdftotext, and searched for each class of badly written number:
# "us" as a unit, "(s)" plurals, more than 4 significant digits, "e+" exponents, six
# decimals, messages/s as a raw integer, a number whose unit went to the next line. The
# classes are regular expressions run by an independent Python script, not mpilens's
# formatter. VOICE_KEEP=DIR keeps the texts and the offending lines there.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
export SOURCE_DATE_EPOCH=1712345678
mkdir -p "$TMP/figs"
export TMPDIR=$TMP/figs
ONE=$DATA/network-tests2/one_to_one_np4/network
S32=samples/cubes/synth32/network
CASITA=$DATA/otf2/casita-4_mpi_ls_barr

# a point-to-point sweep of one pair in the CSV layout of bench/net/p2p_out.c (the report's
# p2p tables: latency, bandwidth, message rate), values from a latency model
mkdir -p "$TMP/sw"
$PY - "$TMP/sw/pair_p2p.csv" <<'EOF'
import sys
cols = ("size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,"
        "bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,"
        "msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,"
        "host_a,host_b")
out = [cols]
for s in [0, 1, 64, 4096, 262144, 4194304]:
    med = 2.3456e-7 + s / 9.7123e9
    t = 64 * med * 0.55
    bw, rate = (64 * s / t if s else 0.0), 64 / t
    out.append(",".join(str(v) for v in [s, med * 1.1, med * 0.9, med, med * 3, bw, bw * 0.5, bw, bw * 1.1,
                                         rate, rate * 0.5, rate, rate * 1.1, t, 64, 10, 1000, 100, 0, "intra",
                                         0, 1, "nodeA", "nodeA"]))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF

# ---- the PDFs ----
check "report" "$M" report "$ONE" "$S32" "$TMP/sw/pair" -o "$TMP/report.pdf"
check "problems" "$M" problems "$CASITA" --report "$TMP/problems.pdf"
check "scale" "$M" scale report samples/scale/paper.csv -o "$TMP/scale.pdf"
check "profiles" "$M" profile-clusters samples/profiles/halo64.csv --report "$TMP/profiles.pdf"
"$M" synth -o "$TMP/rep/network" --procs 32 --nodes 4 --sockets 2 --seed 20261121 --force >/dev/null 2>&1
check "compare" "$M" compare "$S32" "$TMP/rep/network" -o "$TMP/compare.pdf"
check_exit "accept" 3 "$M" accept "$S32" --criteria samples/criteria/demo.criteria -o "$TMP/accept.pdf"

# Offenders per class, one line each "CLASS<TAB>PDF<TAB>text", from the -layout text (tables
# keep their rows) and, for numbers cut from their unit, from the flowing text (a line break
# of the paragraph is a line break there).
cat >"$TMP/voice.py" <<'EOF'
import re, sys
classes = {
    # "us" as a unit: a word "us" after a number or inside brackets ("(us)", "[us]")
    "us-unit": re.compile(r"(\d|\(|\[)\s?us\b"),
    "plural-(s)": re.compile(r"[A-Za-z]\(s\)"),
    "e-exponent": re.compile(r"\d[eE][+-]\d"),
    # a rate as a raw count: "1234567 messages/s" in words, or a column headed "1/s" whose
    # cells are then integers of seven digits
    "msgs-raw-integer": re.compile(r"(?<![\d.,])\d{5,}\s*(messages|msgs?)/s|rate, 1/s"),
}
decimal = re.compile(r"(?<![\d.:\-/])(\d+)\.(\d+)(?![\d.]|-\d)")

def sig(a, b):
    # significant digits of a.b: leading zeros do not count, trailing ones do (they claim precision)
    d = (a + b).lstrip("0")
    return len(d)

out = []
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1]
    lines = open(path + ".layout", encoding="utf-8", errors="replace").read().split("\n")
    for ln in lines:
        for cls, rx in classes.items():
            if rx.search(ln):
                out.append((cls, name, ln.strip()))
        if any(sig(m.group(1), m.group(2)) > 4 for m in decimal.finditer(ln)):
            out.append(("over-4-digits", name, ln.strip()))
        # printf's "%.6f": six decimals whatever the magnitude ("20.085424", "0.000068"); a
        # small value written to 4 significant digits ("-0.007709") is not one
        if any(len(m.group(2)) == 6 and sig(m.group(1), m.group(2)) != 4 for m in decimal.finditer(ln)):
            out.append(("six-decimals", name, ln.strip()))
    flow = open(path + ".flow", encoding="utf-8", errors="replace").read().split("\n")
    for a, b in zip(flow, flow[1:]):
        if re.search(r"\d$", a) and re.match(r"(µs|us|ms|ns|s|B|KiB|MiB|GiB|GB/s|MB/s|%)(\W|$)", b):
            out.append(("number-cut-from-unit", name, a[-30:] + " | " + b[:30]))
for o in out:
    print("\t".join(o))
EOF
for p in report problems scale profiles compare accept; do
    pdftotext -layout "$TMP/$p.pdf" "$TMP/$p.layout" 2>/dev/null
    pdftotext "$TMP/$p.pdf" "$TMP/$p.flow" 2>/dev/null
done
$PY "$TMP/voice.py" "$TMP"/{report,problems,scale,profiles,compare,accept} >"$TMP/offenders.tsv"
if [ -n "${VOICE_KEEP:-}" ]; then mkdir -p "$VOICE_KEEP"; cp "$TMP"/*.layout "$TMP"/*.flow "$TMP/offenders.tsv" "$VOICE_KEEP/"; fi

# The regexes must be able to fail: each class finds its planted offender in a text written here.
printf 'median 12.345 us\n3 host(s)\n1.5e+06\n0.123456 s\n1234567 messages/s\nmessage rate, 1/s\n' >"$TMP/plant.layout"
printf 'the delay is 12\nµs long\n' >"$TMP/plant.flow"
planted=$($PY "$TMP/voice.py" "$TMP/plant" | cut -f1 | sort -u | tr '\n' ' ')
check_eq "every class catches its planted offender" "$planted" \
    "e-exponent msgs-raw-integer number-cut-from-unit over-4-digits plural-(s) six-decimals us-unit "

for cls in us-unit 'plural-(s)' over-4-digits e-exponent six-decimals msgs-raw-integer number-cut-from-unit; do
    n=$(awk -F'\t' -v c="$cls" '$1 == c' "$TMP/offenders.tsv" | wc -l)
    check_eq "no $cls in the PDFs" "$n" 0
    [ "$n" = 0 ] || awk -F'\t' -v c="$cls" '$1 == c { print "  " $2 ": " $3 }' "$TMP/offenders.tsv" | head -8 >&2
done
finish test_numbers_voice
