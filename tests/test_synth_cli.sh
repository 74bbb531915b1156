#!/usr/bin/env bash
# `mpilens synth` option values: every value is parsed whole, so a typo is a usage error
# (status 2) and never a silent default (a seed "abc" used to give seed 0, "0:1024:512junk"
# was taken as 0:1024:512); a valid seed gives the same cube twice and another seed another.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
# the cube files carry a date to the second: two runs straddling a second differ without it
export SOURCE_DATE_EPOCH=1795219200

for bad in "--seed abc" "--seed -1" "--seed 12x" "--seed 99999999999999999999999" \
           "--lengths 0:1024:512junk" "--lengths 0:1024" "--lengths 0:x:512" \
           "--bad-link 3,17x" "--bad-link 3" "--asym-pair 1" "--asym-pair 1,2,3"; do
    # shellcheck disable=SC2086
    check_exit "synth $bad is a usage error" 2 "$BIN/mpilens" synth -o "$TMP/bad/n" $bad
done
check "no output is left by a refused option" test ! -e "$TMP/bad"

run() { "$BIN/mpilens" synth -o "$TMP/$1/n" --procs 8 --nodes 2 --lengths 0:1024:512 \
        --bad-link 3,6 --asym-pair 1,2 --seed "$2" >/dev/null 2>&1; }
check "seed 7 is accepted" run a 7
check "seed 7 again" run b 7
check "seed 8 is accepted" run c 8
check "the same seed gives the same cube" cmp "$TMP/a/n_median.nc" "$TMP/b/n_median.nc"
if cmp -s "$TMP/a/n_median.nc" "$TMP/c/n_median.nc"; then fail "another seed gives another cube"; else ok; fi

finish test_synth_cli
