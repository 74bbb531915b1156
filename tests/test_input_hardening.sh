# Hostile cube input through the command line, one regression per reproducer of the fuzzing
# report: host names longer than the old 1023-byte line buffer (split into two hosts, a UTF-8
# character cut, invalid JSON), invalid UTF-8, a 324-byte NetCDF header declaring 67 million
# dimensions (7 GB in libnetcdf), duplicate names, lengths whose sequence overflows int, negative
# counts, a packed cube whose header promises billions of pairs and lengths (4.5 GB in
# decompress). Each must exit 1 with one clear line naming the file (or work, for long names).
. tests/lib.sh
NT=$DATA/network-tests2
M=$BIN/mpilens
case "$BUILD" in *asan*) SAN=1 ;; *) SAN=0 ;; esac

# limited CMD...: runs CMD in a subshell limited to 1 GB of address space (not under ASan,
# whose shadow memory needs terabytes of it) and 30 s, so that a regression fails the test
# instead of eating the machine
limited() { ( [ "$SAN" = 1 ] || ulimit -v 1000000; exec timeout 30 "$@" ); }
# bad DESCRIPTION REGEX CMD...: exit 1, one line matching REGEX
bad() {
    local d=$1 re=$2; shift 2
    check_exit "$d: exits 1" 1 limited "$@"
    check_match "$d: message" "$(cat "$TMP/err")" "$re"
    check_eq "$d: one line" "$(grep -cv 'mpilens: warning' "$TMP/err")" "1"
}
mk() { mkdir -p "$TMP/$1"; cp "$NT/one_to_one_np4/"* "$TMP/$1/"; chmod u+w "$TMP/$1/"*; }
# cdl NAME SCALARS: a 2-process, 2-length cube whose scalar variables are SCALARS
cdl() {
    mkdir -p "$TMP/$1"
    {
        echo "netcdf a { dimensions: x = 2 ; y = 2 ; n = UNLIMITED ; three = 3 ;"
        echo "variables: int proc_num ; int test_type ; $3 int step_length ; int num_repeates ;"
        echo "double data(n, x, y) ;"
        echo "data: proc_num = 2 ; test_type = 1 ; $2"
        echo "data = 0,1e-6,2e-6,0, 0,3e-6,4e-6,0 ; }"
    } >"$TMP/$1.cdl"
    ncgen -k 2 -o "$TMP/$1/network_median.nc" "$TMP/$1.cdl"
}

# --- item 6: host names -------------------------------------------------------------------
cyr=$(python3 -c 'print("д" * 1000, end="")') # 2000 bytes, 1000 characters
mk long; { echo "$cyr"; echo vm; echo vm; echo vm; } >"$TMP/long/network_hosts.txt"
check_exit "2000-byte Cyrillic host: info --json" 0 "$M" info --json "$TMP/long/network"
check_eq "2000-byte Cyrillic host: valid JSON, one host of 2000 bytes, 4 hosts" \
    "$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"]; print(len(h), len(h[0].encode()), h[0] == "д" * 1000)' "$TMP/out")" \
    "4 2000 True"
check_exit "2000-byte Cyrillic host: info" 0 "$M" info "$TMP/long/network"
check_match "2000-byte Cyrillic host: 2 distinct" "$(cat "$TMP/out")" "hosts: +2 distinct"
check_exit "2000-byte Cyrillic host: report (cairo failed on the split name)" 0 "$M" report "$TMP/long/network" -o "$TMP/long.pdf"

mk huge; python3 -c 'import sys; [print("n" * 9999 + str(i)) for i in range(4)]' >"$TMP/huge/network_hosts.txt"
check_exit "10,000-character names: info --json" 0 "$M" info --json "$TMP/huge/network"
check_eq "10,000-character names: 4 hosts of 10000 bytes" \
    "$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"]; print(len(h), sorted(set(map(len, h))))' "$TMP/out")" \
    "4 [10000]"

mk cap; { echo vm; python3 -c 'print("a" * 65537)'; echo vm; echo vm; } >"$TMP/cap/network_hosts.txt"
bad "name over 64 KiB" "cap/network_hosts.txt:2: host name longer than 65536 bytes" "$M" info "$TMP/cap/network"
mk capok; { echo vm; python3 -c 'print("a" * 65536)'; echo vm; echo vm; } >"$TMP/capok/network_hosts.txt"
check_exit "name of exactly 64 KiB" 0 "$M" info "$TMP/capok/network"

mk utf; { echo vm; echo vm; printf '%s' "$cyr" | head -c 1023; echo; echo vm; } >"$TMP/utf/network_hosts.txt"
bad "cut UTF-8 character" "utf/network_hosts.txt:3: host name is not valid UTF-8" "$M" info "$TMP/utf/network"
mk nul; { echo vm; printf 'v\0m\n'; echo vm; echo vm; } >"$TMP/nul/network_hosts.txt"
bad "NUL in a host name" "nul/network_hosts.txt:2: host name is not valid UTF-8" "$M" info "$TMP/nul/network"
mk crlf; printf 'a\r\nb\r\n\r\nc\r\nd\r\n' >"$TMP/crlf/network_hosts.txt"
check_exit "CRLF hosts file" 0 "$M" info --json "$TMP/crlf/network"
check_match "CRLF hosts file: names without CR" "$(cat "$TMP/out")" '"hosts":\["a","b","c","d"\]'
mk count; { echo "$cyr"; echo "$cyr"; echo vm; echo vm; echo vm; } >"$TMP/count/network_hosts.txt"
bad "5 long names for 4 processes" "count/network_hosts.txt: 5 host names for 4 processes" "$M" info "$TMP/count/network"

# --- item 7: headers the library must not see ---------------------------------------------
mkdir -p "$TMP/d67"
python3 -c 'import struct,sys; sys.stdout.buffer.write(b"CDF\x01" + struct.pack(">III", 0, 10, 67108864) + bytes(308))' \
    >"$TMP/d67/x_median.nc"
check_eq "67M-dimension header is 324 bytes" "$(stat -c %s "$TMP/d67/x_median.nc")" "324"
bad "67M dimensions" "d67/x_median.nc: not a readable NetCDF file: the header declares 67108864 dimensions, but the file holds 324 bytes" \
    "$M" info "$TMP/d67/x_median.nc"
rss=$(/usr/bin/time -f %M "$M" info "$TMP/d67/x_median.nc" 2>&1 >/dev/null | tail -n 1)
check_match "67M dimensions: max RSS under 300 MB (KiB: $rss)" "$rss" '^[0-9]+$'
[ "${rss:-999999}" -lt 300000 ] && ok || fail "67M dimensions: max RSS $rss KiB"

mk dup; python3 - "$TMP/dup/network_median.nc" <<'EOF'
import sys
p = sys.argv[1]; b = open(p, 'rb').read()
# the dimension y becomes a second x: same length, so every offset stays right
b = b.replace(b'\x00\x00\x00\x01y\x00\x00\x00', b'\x00\x00\x00\x01x\x00\x00\x00', 1)
open(p, 'wb').write(b)
EOF
bad "duplicate dimension" "dup/network_median.nc: not a readable NetCDF file: two dimensions are named 'x'" "$M" info "$TMP/dup/network"

mk trunc; head -c 100 "$NT/one_to_one_np4/network_median.nc" >"$TMP/trunc/network_median.nc"
bad "truncated header" "trunc/network_median.nc: not a readable NetCDF file: the header (is truncated|declares 11 variables)" "$M" info "$TMP/trunc/network"
check_exit "truncated header: compress exits 1" 1 limited "$M" compress "$TMP/trunc/network" -o "$TMP/trunc.lcz.nc"
check_match "truncated header: compress message" "$(cat "$TMP/err")" "trunc/network_median.nc: not a readable NetCDF file"

# --- item 10: lengths and counts ----------------------------------------------------------
cdl ovf "begin_mes_length = 0 ; step_length = 1000000000 ; num_repeates = 10 ;" "int begin_mes_length ;"
# 2 lengths fit (0, 1e9) but the end 2e9 too; 3 would not: make it 4 lengths like the report
sed -i 's/data = 0,1e-6,2e-6,0, 0,3e-6,4e-6,0 ;/data = 0,1,1,0, 0,1,1,0, 0,1,1,0, 0,1,1,0 ;/' "$TMP/ovf.cdl"
ncgen -k 2 -o "$TMP/ovf/network_median.nc" "$TMP/ovf.cdl"
bad "lengths overflow int" "ovf/network_median.nc: 4 lengths from begin_mes_length = 0 by step_length = 1000000000 end at 4000000000 bytes" \
    "$M" info "$TMP/ovf/network"
check_exit "lengths overflow: compress (stream reader) exits 1" 1 limited "$M" compress "$TMP/ovf/network" -o "$TMP/ovf.lcz.nc"
check_match "lengths overflow: compress message" "$(cat "$TMP/err")" "ovf/network_median.nc: 4 lengths"

cdl negrep "begin_mes_length = 0 ; step_length = 100 ; num_repeates = -5 ;" "int begin_mes_length ;"
bad "negative num_repeates" "negrep/network_median.nc: num_repeates = -5 is negative" "$M" info "$TMP/negrep/network"
cdl negstep "begin_mes_length = 0 ; step_length = -100 ; num_repeates = 5 ;" "int begin_mes_length ;"
bad "negative step" "negstep/network_median.nc: step_length = -100 for 2 lengths" "$M" info "$TMP/negstep/network"
cdl negbegin "begin_mes_length = -8 ; step_length = 100 ; num_repeates = 5 ;" "int begin_mes_length ;"
bad "negative begin" "negbegin/network_median.nc: begin_mes_length = -8" "$M" info "$TMP/negbegin/network"
# an array where one value is expected: nc_get_var_int would have written 3 ints into one
cdl arr "begin_mes_length = 0, 0, 0 ; step_length = 100 ; num_repeates = 5 ;" "int begin_mes_length(three) ;"
bad "array begin_mes_length" "arr/network_median.nc: variable 'begin_mes_length' holds 3 values, expected one" \
    "$M" info "$TMP/arr/network"
cdl good "begin_mes_length = 0 ; step_length = 100 ; num_repeates = 5 ;" "int begin_mes_length ;"
check_exit "the same cube with sane values works" 0 "$M" info "$TMP/good/network"

# --- the packed cube ----------------------------------------------------------------------
"$M" compress "$NT/one_to_one_np4/network" -o "$TMP/p.nc" >/dev/null 2>&1
check_exit "packed cube: decompress works" 0 "$M" decompress "$TMP/p.nc" -o "$TMP/unp/network"
# the bomb: dimensions of a billion pairs and two billion lengths that no variable uses, so
# the NetCDF header is valid and small; the reader allocated from them (4.5 GB)
cat >"$TMP/bomb.cdl" <<'EOF'
netcdf bomb { dimensions: pairs = 1073741824 ; lengths1 = 2147483647 ; four = 4 ;
variables: int unused ;
:format = "mpilens packed cube 1" ; :procs = 32768 ; :begin = 0 ; :end = 1 ; :step = 1 ;
:mode = 1 ; :repeats = 1 ; :noise_len = 0 ; :noise_msgs = 0 ; :noise_procs = 0 ;
data: unused = 0 ; }
EOF
ncgen -k 2 -o "$TMP/bomb.nc" "$TMP/bomb.cdl"
start=$(date +%s)
bad "packed bomb" "bomb.nc: the header declares 1073741824 pairs and 2147483646 lengths, but the file holds [0-9]+ bytes" \
    "$M" decompress "$TMP/bomb.nc" -o "$TMP/bombout/network"
check_match "packed bomb: refused at once" "$(( $(date +%s) - start ))" '^[0-5]$'
# damaged metadata of a real packed file (ncdump -> edit -> ncgen)
ncdump "$TMP/p.nc" >"$TMP/p.cdl"
sed 's/:repeats = [0-9]* ;/:repeats = -1 ;/' "$TMP/p.cdl" >"$TMP/prep.cdl" && ncgen -k 2 -o "$TMP/prep.nc" "$TMP/prep.cdl"
bad "packed: negative repeats" "prep.nc: attribute repeats = -1 is negative" "$M" decompress "$TMP/prep.nc" -o "$TMP/x1/network"
sed 's/:step = [0-9]* ;/:step = 1000000000 ;/' "$TMP/p.cdl" >"$TMP/pstep.cdl" && ncgen -k 2 -o "$TMP/pstep.nc" "$TMP/pstep.cdl"
bad "packed: lengths overflow" "pstep.nc: 9 lengths from begin_mes_length = 0 by step_length = 1000000000" \
    "$M" decompress "$TMP/pstep.nc" -o "$TMP/x2/network"
sed 's/:procs = [0-9]* ;/:procs = 4, 4 ;/' "$TMP/p.cdl" >"$TMP/pprocs.cdl" && ncgen -k 2 -o "$TMP/pprocs.nc" "$TMP/pprocs.cdl"
bad "packed: two-valued procs" "pprocs.nc: bad or missing metadata" "$M" decompress "$TMP/pprocs.nc" -o "$TMP/x3/network"
python3 - "$TMP/p.cdl" "$TMP/pfour.cdl" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
# an event table of 5 columns where the reader's buffer holds 4 per event
t = t.replace("four = 4 ;", "four = 4 ;\n\tfive = 5 ;", 1)
t = re.sub(r"int average_event\(average_events, four\)", "int average_event(average_events, five)", t)
t = re.sub(r"(average_event =)([^;]*);", lambda m: m.group(1) + m.group(2) + (", 0" * (m.group(2).count(",") // 4 + 1)) + " ;", t)
open(sys.argv[2], "w").write(t)
EOF
ncgen -k 2 -o "$TMP/pfour.nc" "$TMP/pfour.cdl"
bad "packed: event table of 5 columns" "pfour.nc: variable .average_event. is missing or not \(average_events, four\)" "$M" decompress "$TMP/pfour.nc" -o "$TMP/x4/network"
check_eq "nothing written by the failed decompressions" "$(ls -d "$TMP"/bombout "$TMP"/x[1-4] 2>/dev/null | wc -l)" "0"

# a p2p file whose dimensions promise a trillion cells that no variable holds
printf 'netcdf b { dimensions: pair = 1048576 ; size = 1048576 ; variables: int unused ; data: unused = 0 ; }\n' >"$TMP/pb.cdl"
ncgen -k 2 -o "$TMP/pb_p2p.nc" "$TMP/pb.cdl"
bad "p2p: cells beyond the file" "pb_p2p.nc: the header declares 1048576 pairs x 1048576 sizes, but the file holds [0-9]+ bytes" \
    "$M" p2p "$TMP/pb_p2p.nc"

finish test_input_hardening
