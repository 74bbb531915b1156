# Bad input: every case gets one clear line naming the file, exit status 1, and no output.
. tests/lib.sh
NT=$DATA/network-tests2

# cdl NAME X Y N VALUES [EXTRA_VARS]: a network_test2-style CDL file, VALUES for data
cdl() {
    local name=$1 x=$2 y=$3 n=$4 values=$5 novar=${6:-}
    {
        echo "netcdf $name { dimensions: x = $x ; y = $y ; n = UNLIMITED ; strings = 101 ;"
        echo "variables: int proc_num ; int test_type ; int data_type ; int begin_mes_length ;"
        echo "int end_mes_length ; int step_length ; int num_repeates ;"
        [ -z "$novar" ] && echo "double data(n, x, y) ;"
        echo "data: proc_num = $x ; test_type = 1 ; data_type = 2 ; begin_mes_length = 0 ;"
        echo "end_mes_length = $((n * 100 + 1)) ; step_length = 100 ; num_repeates = 10 ;"
        [ -z "$novar" ] && [ -n "$values" ] && echo "data = $values ;"
        echo "}"
    }
}
# bad CASE PREFIX REGEX: info must fail with status 1 and a message matching REGEX; convert
# must write nothing
bad() {
    local what=$1 prefix=$2 re=$3
    check_exit "$what: info exits 1" 1 "$BIN/mpilens" info "$prefix"
    local msg; msg=$(cat "$TMP/err")
    check_match "$what: message" "$msg" "$re"
    check_eq "$what: one line" "$(echo "$msg" | wc -l)" "1"
    check_exit "$what: convert exits 1" 1 "$BIN/mpilens" convert "$prefix" -o "$TMP/out_$what/network"
    check_eq "$what: nothing written" "$(ls "$TMP/out_$what" 2>/dev/null | wc -l)" "0"
}
mk() { mkdir -p "$TMP/$1"; cp "$NT/one_to_one_np4/"* "$TMP/$1/"; chmod u+w "$TMP/$1/"*; }

bad missing "$TMP/nonexistent/network" "nonexistent/network_median.nc: no such file"

mk trunc; head -c 700 "$NT/one_to_one_np4/network_median.nc" >"$TMP/trunc/network_median.nc"
bad truncated "$TMP/trunc/network" "trunc/network_median.nc: .*(truncated|not a readable)"
mk trunc2; head -c 1772 "$NT/one_to_one_np4/network_median.nc" >"$TMP/trunc2/network_median.nc"
bad truncated_tail "$TMP/trunc2/network" "trunc2/network_median.nc: truncated NetCDF file: 1772 bytes, the header promises 1780"

mk corrupt; head -c 1780 /dev/urandom >"$TMP/corrupt/network_median.nc"
bad corrupt "$TMP/corrupt/network" "corrupt/network_median.nc: not a readable NetCDF file"

mkdir -p "$TMP/novar"; cdl a 2 2 1 "" novar >"$TMP/novar.cdl"; ncgen -k 2 -o "$TMP/novar/network_median.nc" "$TMP/novar.cdl"
bad novar "$TMP/novar/network" "novar/network_median.nc: missing variable 'data'"

mkdir -p "$TMP/xy"; cdl a 2 3 1 "1e-6,2e-6,3e-6,4e-6,5e-6,6e-6" >"$TMP/xy.cdl"; ncgen -k 2 -o "$TMP/xy/network_median.nc" "$TMP/xy.cdl"
bad xy "$TMP/xy/network" "xy/network_median.nc: variable 'data' is not square: x = 2, y = 3"

mkdir -p "$TMP/zero"; cdl a 2 2 0 "" >"$TMP/zero.cdl"; ncgen -k 2 -o "$TMP/zero/network_median.nc" "$TMP/zero.cdl"
bad zero "$TMP/zero/network" "zero/network_median.nc: zero message lengths"

mk disagree; cp "$NT/one_to_one_np2/network_average.nc" "$TMP/disagree/"
bad disagree "$TMP/disagree/network" "disagree/network_(average|median).nc: [24] processes, but .* has [24]"

mk hosts; echo extra-host >>"$TMP/hosts/network_hosts.txt"
bad hosts "$TMP/hosts/network" "hosts/network_hosts.txt: 5 host names for 4 processes"

mkdir -p "$TMP/allnan"; cdl a 2 2 1 "0,NaN,-1,0" >"$TMP/allnan.cdl"; ncgen -k 2 -o "$TMP/allnan/network_median.nc" "$TMP/allnan.cdl"
bad allnan "$TMP/allnan/network" "allnan/network: median: no usable delay"

mkdir -p "$TMP/multi"; cp "$NT/one_to_one_np2/network_median.nc" "$TMP/multi/a_median.nc"; cp "$NT/one_to_one_np2/network_median.nc" "$TMP/multi/b_median.nc"
bad multi "$TMP/multi" "multi: holds more than one result"

# usable data with some NaN, infinite and negative delays: a warning with the count
mkdir -p "$TMP/somenan"
cdl a 3 3 2 "0,1e-6,NaN, 2e-6,0,-3e-6, 4e-6,5e-6,0, 0,Infinity,7e-6, 8e-6,0,9e-6, 1e-5,1.1e-5,0" >"$TMP/somenan.cdl"
ncgen -k 2 -o "$TMP/somenan/network_median.nc" "$TMP/somenan.cdl"
check_exit "some NaN: still readable" 0 "$BIN/mpilens" info "$TMP/somenan/network_median.nc"
check_match "some NaN: warning with count" "$(cat "$TMP/out")" "median: 3 of 12 delays are NaN, infinite or negative"
check_match "some NaN: summary ignores them" "$(cat "$TMP/out")" "median +1e-06 +7e-06 +1.1e-05"
check_match "no hosts file: warning" "$(cat "$TMP/out")" "no hosts file"

# an unwritable output names the output and leaves nothing
check_exit "unwritable output" 1 "$BIN/mpilens" convert "$NT/one_to_one_np2" -o /proc/mpilens-no/network
check_match "unwritable output: message" "$(cat "$TMP/err")" "/proc/mpilens-no"

finish test_cube_errors
