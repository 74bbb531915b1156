#!/usr/bin/env bash
# The OTF2 anchor guard (analysis/trace/trace.c check_anchor): libotf2 2.3 callocs two pointers per
# property the anchor file declares, so a crafted count made it allocate gigabytes (found by
# tests/fuzz/fuzz_otf2). A count the file cannot hold must be a clear error before the library
# sees it; the real anchors of tests/data still read.
. tests/lib.sh
M=$BIN/mpilens
src=$DATA/otf2/pipit-ping-pong
cp -r "$src" "$TMP/t"
chmod -R u+w "$TMP/t"
# the property count follows 7 + 1 + 38 bytes and three NUL-terminated strings (LE archive)
off=$(python3 - "$TMP/t/traces.otf2" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
at = 7 + 1 + 38
for _ in range(3):
    at = b.index(b'\0', at) + 1
print(at)
PY
)
count=$(python3 -c "import sys,struct; b=open('$TMP/t/traces.otf2','rb').read(); print(struct.unpack_from('<I', b, $off)[0])")
check_eq "the real anchor declares the properties otf2-print lists" "$count" \
    "$(otf2-print -A "$src/traces.otf2" 2>/dev/null | awk '/^Number of properties/ { print $4 }')"
check "the real archive reads" $M problems "$src"
python3 - "$TMP/t/traces.otf2" "$off" <<'PY'
import sys, struct
p, off = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read())
struct.pack_into('<I', b, off, 637000000)
open(p, 'wb').write(b)
PY
# a memory limit turns a regression into a quick failure; ASan reserves terabytes of shadow
# memory, so no limit there (its allocator reports an oversized calloc itself)
case "$BUILD" in *asan*) lim= ;; *) lim="ulimit -v 2000000;" ;; esac
check_exit "a crafted property count is refused" 1 bash -c "$lim exec $M problems $TMP/t"
check_match "the message names the count and the room" "$(cat "$TMP/err")" \
    "anchor file declares 637000000 properties, but holds [0-9]+ bytes after the count"
head -c 20000000 /dev/zero > "$TMP/t/traces.otf2"
check_exit "an anchor over 16 MiB is refused" 1 $M problems "$TMP/t"
check_match "it says why" "$(cat "$TMP/err")" "anchor file is larger than"
finish test_otf2_anchor
