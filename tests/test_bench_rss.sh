# mpilens-bench's output scales: with PnetCDF every rank writes its own rows, so what the output
# step adds to a rank's peak memory grows with P, not P^2. Under real mpirun at 16, 32 and 64
# oversubscribed ranks (--timing: "output step +N kB", the largest growth of any rank's VmHWM
# during the gather or parallel write), the growth from 32 to 64 ranks stays below half of what
# holding every cell on one rank adds (8 B x (64^2 - 32^2) x (4 statistics + repeats)), and the
# forced gather (MPILENS_BENCH_GATHER=1) exceeds that bound, as its P^2 buffers predict. First,
# both paths write the same layout: same header bytes and sizes, an injected slow cell in place.
. tests/lib.sh
# no quarantine: ASan would keep every freed transient buffer resident, and VmHWM would count
# the sum of them, not the program's peak; no leak report, as in every bench test
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:quarantine_size_mb=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench
export SOURCE_DATE_EPOCH=1700000000 # the date attribute: equal headers in both runs

# ---- the same layout: gather vs PnetCDF, same command line (run from folders of their own) ----
for path in 0 1; do
    mkdir -p "$TMP/lay$path"
    # cell (sender 1, receiver 2) 0.25 s slower: where it lands shows the row each rank wrote
    (cd "$TMP/lay$path" && MPILENS_BENCH_GATHER=$path MPILENS_BENCH_INJECT=1,2,0.25 $MPIRUN -np 4 \
        "$OLDPWD/$B" -t one_to_one -n 4 --warmup 1 -b 0 -e 2049 -s 1024 --raw -f net </dev/null >/dev/null 2>err)
    check_eq "layout run (gather=$path) succeeds" "$?" "0"
done
# measured_at is each run's own start time (ISO 8601): the one attribute the two runs may
# differ in, masked here so the layouts compare
hdr() { head -c "$2" "$1" | /usr/bin/python3 -c 'import re, sys; sys.stdout.buffer.write(re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", b"T", sys.stdin.buffer.read()))' | md5sum; }
for f in average median deviation min all; do
    a=$TMP/lay0/net_$f.nc g=$TMP/lay1/net_$f.nc
    check_eq "_$f.nc: ncdump -h equal" "$(ncdump -h "$a" | grep -v measured_at | md5sum)" "$(ncdump -h "$g" | grep -v measured_at | md5sum)"
    check_eq "_$f.nc: same size" "$(stat -c %s "$a")" "$(stat -c %s "$g")"
    # the header is everything before the records: 3 lengths of 4 x 4 doubles (x 4 repeats)
    n=$(($(stat -c %s "$a") - 3 * 4 * 4 * 8 * $([ $f = all ] && echo 4 || echo 1)))
    check_eq "_$f.nc: header bytes equal (first $n)" "$(hdr "$a" "$n")" "$(hdr "$g" "$n")"
    check_eq "_$f.nc: 3 lengths written by PnetCDF" \
        "$(ncdump -h "$a" | sed -nE 's/.*UNLIMITED ; \/\/ \(([0-9]+) currently\).*/\1/p')" "3"
done
# the slow cell: row = receiver in one_to_one, so matrix cell (2, 1) of every length, both paths
for path in 0 1; do
    got=$(ncdump -v data "$TMP/lay$path/net_min.nc" | python3 -c "
import sys, re
t = sys.stdin.read().split('data =')[1]
v = [float(x) for x in re.findall(r'[-0-9.e+]+', t)]
P = 4
print(' '.join(str(i) for i, x in enumerate(v) if x > 0.2))")
    check_eq "gather=$path: the injected cell at (2,1) of each length" "$got" "9 25 41"
done

# ---- peak memory of the output step at 16, 32, 64 ranks ----
N=16 # repeats: --raw adds P x N doubles a rank (P^2 x N on a gathering rank 0)
# outstep GATHER P: "output step" growth in kB, and the peaks, of one one_to_one length
outstep() {
    rm -rf "$TMP/r"
    MPILENS_BENCH_GATHER=$1 $MPIRUN -np "$2" "$B" -t one_to_one --schedule parallel --retest 0 -n $N \
        --warmup 1 -b 0 -e 1 -s 1 --raw --timing -f "$TMP/r/net" </dev/null >/dev/null 2>"$TMP/rss.err"
    sed -nE 's/.*peak RSS rank 0 ([0-9]+) kB, other ranks max ([0-9]+) kB; output step \+([0-9]+) kB.*/\3 \1 \2/p' \
        "$TMP/rss.err" | tail -1
}
declare -A grow
for run in "0 16" "0 32" "0 64" "1 32" "1 64"; do
    set -- $run
    r=$(outstep "$1" "$2")
    check_match "gather=$1 P=$2: --timing reports the output step" "$r" "^[0-9]+ [0-9]+ [0-9]+$"
    grow[$1,$2]=${r%% *}
    echo "  $( [ "$1" = 1 ] && echo gather || echo pnetcdf ) P=$2: output step +${r%% *} kB; peak rank 0 $(echo "$r" | cut -d' ' -f2) kB, other ranks max $(echo "$r" | cut -d' ' -f3) kB"
done
# the P^2 term between 32 and 64 ranks: every cell of 4 statistics and N repeats on one rank
t2=$((8 * (64 * 64 - 32 * 32) * (4 + N) / 1024))
# the O(P) term: what one rank writes of one length, at 64 ranks
t1=$((8 * 64 * (4 + N) / 1024))
bound=$((t2 / 2))
d=$((${grow[0,64]:-0} - ${grow[0,32]:-0}))
echo "  PnetCDF: +$d kB from 32 to 64 ranks (O(P) term $t1 kB a rank; P^2 term $t2 kB; bound $bound kB)"
check "PnetCDF: the output step grows by at most half the P^2 term ($d <= $bound kB)" test "$d" -le "$bound"
dg=$((${grow[1,64]:-0} - ${grow[1,32]:-0}))
echo "  gather: +$dg kB from 32 to 64 ranks"
check "gather: the same bound fails ($dg > $bound kB)" test "$dg" -gt "$bound"
# gather's rank 0 touches 4 x P^2 gathered + 4 x P^2 reordered + N x P^2 raw doubles: 90% of it
want=$((8 * 64 * 64 * (8 + N) * 9 / 10 / 1024))
check "gather: rank 0's P^2 buffers show at 64 ranks (${grow[1,64]:-0} >= $want kB)" test "${grow[1,64]:-0}" -ge "$want"
finish test_bench_rss
