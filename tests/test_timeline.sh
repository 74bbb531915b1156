#!/usr/bin/env bash
# mpilens problems --timeline on a trace of tests/mpi/trace_delay.c (injected late sender and
# other delays, 2 ranks): the window holds the worst instance (of all problems, or of the one
# named with --problem) as `mpilens problems --json` lists it; the SVG has one lane per rank
# and one line per message in the window, counted against otf2-print's MPI_SEND/MPI_RECV
# records paired here independently; output is deterministic; bad windows are errors.
. tests/lib.sh
RULES=templates/rules
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
M="$BIN/mpilens problems --rules $RULES"
$BIN/mpilens trace -o "$TMP/delay" -- $MPIRUN -x OMPI_MCA_mpi_yield_when_idle=1 \
    -np 2 "$BUILD/tests/mpi/trace_delay" > "$TMP/delay.out" 2> "$TMP/delay.err"
check "trace of trace_delay" test -s "$TMP/delay/traces.otf2"
check "problems --json" $M --json "$TMP/delay" -o "$TMP/delay.json"

# --- independent messages: otf2-print records (send at the Send's enter, receive at the
# Recv's leave), ticks to seconds since the global offset, paired per (src, dst, tag) in order
otf2-print "$TMP/delay/traces.otf2" > "$TMP/print.txt"
otf2-print -G "$TMP/delay/traces.otf2" > "$TMP/defs.txt"
/usr/bin/python3 - "$TMP/print.txt" "$TMP/defs.txt" > "$TMP/msgs.txt" <<'PY'
import re, sys
defs = open(sys.argv[2]).read()
res = int(re.search(r"Ticks per Seconds: (\d+)", defs).group(1))
off = int(re.search(r"Global Offset: (\d+)", defs).group(1))
sends, out = {}, []
recvs = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 3 or f[0] not in ("MPI_SEND", "MPI_RECV"):
        continue
    loc, t = int(f[1]), (int(f[2]) - off) / res
    tag = int(re.search(r"Tag: (\d+)", line).group(1))
    if f[0] == "MPI_SEND":
        dst = int(re.search(r"Receiver: (\d+)", line).group(1))
        sends.setdefault((loc, dst, tag), []).append(t)
    else:
        src = int(re.search(r"Sender: (\d+)", line).group(1))
        recvs.append(((src, loc, tag), t))
for key, t in recvs:
    print("%.9f %.9f" % (sends[key].pop(0), t))
PY
check_eq "every message paired" "$(wc -l < "$TMP/msgs.txt")" \
    "$(/usr/bin/python3 -c "import json; print(json.load(open('$TMP/delay.json'))['messages'])")"
# messages whose line (send .. receive) crosses [t0, t1] by a margin d: inside for d > 0
crossing() { awk -v a="$1" -v b="$2" -v d="$3" '$1 <= b - d && $2 >= a + d { n++ } END { print n + 0 }' "$TMP/msgs.txt"; }
# counts in an SVG: lane bands (one rectangle per lane in the band colour) and message lines
# (strokes in the message colour that go from one lane to another)
svgcount() { /usr/bin/python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
bands = len(re.findall(r'fill:rgb\(96\.5%,96\.9%,97\.6%\)', s))
lines = 0
for m in re.finditer(r'<path style="[^"]*stroke:rgb\(8%,8%,8%\)[^"]*" d="M ([-\d.]+) ([-\d.]+) L ([-\d.]+) ([-\d.]+) "', s):
    lines += abs(float(m.group(2)) - float(m.group(4))) > 1
print(bands, lines)
PY
}
field() { sed -n "s/.* $1 \([^ ,]*\).*/\1/p" "$TMP/err"; }
window() { sed -n 's/.*window \([0-9.]*\) \([0-9.]*\) s.*/\1 \2/p' "$TMP/err"; }
js() { /usr/bin/python3 -c "import json; d=json.load(open('$TMP/delay.json')); p={x['id']:x for x in d['problems']}; print($1)"; }

# --- centred on the late sender: the window holds its worst instance
check_exit "timeline --problem late_sender" 0 $M "$TMP/delay" --timeline "$TMP/ls.svg" --problem late_sender
read -r t0 t1 <<< "$(window)"
check_eq "window reported" "$(field problem)" "late_sender"
itime=$(js "p['late_sender']['instances'][0]['time']")
isec=$(js "p['late_sender']['instances'][0]['seconds']")
check_eq "centred on the worst late sender instance" \
    "$(awk -v t="$itime" -v s="$isec" -v a="$t0" -v b="$t1" 'BEGIN { print (a <= t && t + s <= b) }')" 1
check_close "instance time as in the JSON" "$(field instance)" "$itime" 1e-6
check_eq "instance rank" "$(field rank)" "$(js "p['late_sender']['instances'][0]['rank']")"
read -r bands lines <<< "$(svgcount "$TMP/ls.svg")"
check_eq "one lane per rank" "$bands" 2
check_eq "SVG message lines = messages reported" "$lines" "$(field messages)"
lo=$(crossing "$t0" "$t1" 0.001) hi=$(crossing "$t0" "$t1" -0.001)
if [ "$lines" -ge "$lo" ] && [ "$lines" -le "$hi" ] && [ "$hi" -gt 0 ]; then ok
else fail "messages in window $t0-$t1: drew $lines, otf2-print gives $lo..$hi"; fi
check_match "late sender instances highlighted" "$(field instances)" "^[1-9]"

# --- an explicit window whose edges lie in gaps of at least 8 ms between message endpoints
# (send or receive), around the worst late sender: the count is exact
read -r w0 w1 <<< "$(/usr/bin/python3 - "$TMP/msgs.txt" "$itime" <<'PY'
import sys
ends = sorted(float(x) for line in open(sys.argv[1]) for x in line.split())
t = float(sys.argv[2])
mids = [(a + b) / 2 for a, b in zip(ends, ends[1:]) if b - a > 0.008]
before = [m for m in mids if m < t] or [0.0]
after = [m for m in mids if m > t]
print("%.6f %.6f" % (before[-1], after[min(2, len(after) - 1)] if after else ends[-1] + 0.01))
PY
)"
lo=$(crossing "$w0" "$w1" 0.002) hi=$(crossing "$w0" "$w1" -0.002)
check_eq "explicit window edges away from messages" "$lo" "$hi"
check_exit "timeline --window" 0 $M "$TMP/delay" --timeline "$TMP/w.svg" --window "$w0,$w1"
read -r bands lines <<< "$(svgcount "$TMP/w.svg")"
check_eq "explicit window: messages = otf2-print" "$lines" "$lo"
check_eq "explicit window reported" "$(window)" "$(awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.9f %.9f", a, b }')"

# --- automatic: the worst instance of all problems
check_exit "timeline (automatic)" 0 $M "$TMP/delay" --timeline "$TMP/auto.png"
read -r t0 t1 <<< "$(window)"
worst=$(js "max((i['seconds'], i['time'], x['id']) for x in d['problems'] for i in x['instances'])")
check_eq "automatic: the worst problem" "$(field problem)" "$(echo "$worst" | sed "s/.*'\(.*\)')/\1/")"
check_eq "automatic window holds the worst instance" "$(js "$t0 <= $(echo "$worst" | cut -d, -f2 | tr -d ' ') <= $t1")" True
check "PNG readable" /usr/bin/python3 -c "
import sys; sys.path.insert(0, 'tests'); import pngcheck
w, h, rows = pngcheck.pixels('$TMP/auto.png'); assert w == 1200 and h > 200, (w, h)"

# --- deterministic
$M "$TMP/delay" --timeline "$TMP/ls2.svg" --problem late_sender 2>/dev/null
check "SVG byte-identical on rerun" cmp "$TMP/ls.svg" "$TMP/ls2.svg"
$M "$TMP/delay" --timeline "$TMP/auto2.png" 2>/dev/null
check "PNG byte-identical on rerun" cmp "$TMP/auto.png" "$TMP/auto2.png"
# the listing is unchanged by the picture options when asked for
$M --json "$TMP/delay" --timeline "$TMP/x.svg" -o "$TMP/again.json" 2>/dev/null
check "JSON unchanged with --timeline" cmp "$TMP/delay.json" "$TMP/again.json"

# --- a trace of real Score-P: four lanes, three messages, the late sender on rank 3
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
check_exit "casita timeline" 0 $M "$CASITA" --timeline "$TMP/c.svg"
read -r bands lines <<< "$(svgcount "$TMP/c.svg")"
check_eq "casita: four lanes" "$bands" 4
check_eq "casita: three message lines" "$lines" 3
check_eq "casita: worst is the late sender on rank 3" "$(field problem) $(field rank)" "late_sender 3"

# --- errors: usage (2) or failure (1), a message, nothing written
rm -f "$TMP/bad.svg"
check_exit "--window not numbers" 2 $M "$TMP/delay" --timeline "$TMP/bad.svg" --window abc
check_exit "--window reversed" 2 $M "$TMP/delay" --timeline "$TMP/bad.svg" --window 0.5,0.2
check_exit "--window one value" 2 $M "$TMP/delay" --timeline "$TMP/bad.svg" --window 0.5
check_exit "--window outside the trace" 1 $M "$TMP/delay" --timeline "$TMP/bad.svg" --window 500,600
check_match "outside message" "$(cat "$TMP/err")" "bad.svg: timeline: window 500.000000-600.000000 s lies outside the trace"
check_exit "--window without --timeline" 2 $M "$TMP/delay" --window 0.1,0.2
check_exit "--problem and --window" 2 $M "$TMP/delay" --timeline "$TMP/bad.svg" --problem late_sender --window 0.1,0.2
check_exit "unknown problem" 1 $M "$TMP/delay" --timeline "$TMP/bad.svg" --problem late_lunch
check_match "unknown problem message" "$(cat "$TMP/err")" "unknown problem 'late_lunch'"
check_exit "problem without instance" 1 $M "$TMP/delay" --timeline "$TMP/bad.svg" --problem early_scan
check_match "no instance message" "$(cat "$TMP/err")" "'early_scan' has no instance"
check_exit "bad extension" 1 $M "$TMP/delay" --timeline "$TMP/bad.gif"
check_match "bad extension message" "$(cat "$TMP/err")" "bad.gif: output must end in .png or .svg"
check_exit "unwritable directory" 1 $M "$TMP/delay" --timeline "$TMP/none/x.svg"
check_match "unwritable message" "$(cat "$TMP/err")" "none/x.svg"
check_exit "bad trace" 1 $M "$TMP/nope" --timeline "$TMP/bad.svg"
check "nothing written" test ! -e "$TMP/bad.svg" -a ! -e "$TMP/bad.gif"
finish test_timeline
