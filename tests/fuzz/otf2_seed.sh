#!/usr/bin/env bash
# Joins the files of an OTF2 archive into one input of the "otf2" fuzz target
# (tests/fuzz/fuzz_otf2.c): anchor, global definitions, then each location's .def and .evt,
# separated by the marker the harness splits at. Locations must be numbered 0..N-1.
# Usage: tests/fuzz/otf2_seed.sh ARCHIVE_DIR > seed
set -eu
dir=$1
mark=$'\n--mpilens-otf2-part--\n'
n=$(ls "$dir"/traces/*.evt | wc -l)
{
    cat "$dir/traces.otf2"; printf '%s' "$mark"
    cat "$dir/traces.def"
    for ((i = 0; i < n; i++)); do
        [ -f "$dir/traces/$i.evt" ] || { echo "otf2_seed.sh: $dir/traces/$i.evt missing" >&2; exit 1; }
        printf '%s' "$mark"; [ -f "$dir/traces/$i.def" ] && cat "$dir/traces/$i.def"
        printf '%s' "$mark"; cat "$dir/traces/$i.evt"
    done
}
