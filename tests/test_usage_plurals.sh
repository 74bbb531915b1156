#!/usr/bin/env bash
# Counts in usage errors and input errors take the noun the count asks for, as every PDF does
# (common/units.h, lens_units_count): "2 baselines for 1 cube INPUT", never "baseline(s)" or
# "INPUT(s)". The expected sentences are written out here by hand.
. tests/lib.sh
M="$BIN/mpilens"
C=samples/cubes/synth32/network
check_exit "accept: two baselines for one cube is a usage error" 2 \
    "$M" accept "$C" --criteria samples/criteria/acceptance.criteria --baseline "$C" "$C"
check_match "accept: 2 baselines, 1 cube INPUT" "$(cat "$TMP/err")" \
    "^mpilens accept: --baseline gives 2 baselines for 1 cube INPUT: one per cube, in order$"
check_exit "report: two labels for one input is a usage error" 2 \
    "$M" report "$C" -o "$TMP/x.pdf" --label a --label b
check_match "report: 2 --label for 1 INPUT" "$(cat "$TMP/err")" \
    "^mpilens report: 2 --label for 1 INPUT: give at most one per INPUT, in order$"
check_eq "report: no PDF written" "$(ls "$TMP"/x.pdf 2>/dev/null | wc -l)" 0
check_exit "report: three labels for two inputs" 2 \
    "$M" report "$C" "$C" -o "$TMP/x.pdf" --label a --label b --label c
check_match "report: 3 --label for 2 INPUTs" "$(cat "$TMP/err")" "3 --label for 2 INPUTs:"
check_eq "no '(s)' plural in any of them" "$(grep -c '[A-Za-z](s)' "$TMP/err")" 0
finish test_usage_plurals
