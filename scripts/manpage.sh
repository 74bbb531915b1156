#!/usr/bin/env bash
# Writes the man page of mpilens or mpilens-bench from its --help with Debian's help2man:
#   scripts/manpage.sh BUILD/bin/PROGRAM OUT.1
# mpilens's page also gets a COMMANDS section holding every subcommand's --help, and both
# get FILES, ENVIRONMENT and SEE ALSO. The date is SOURCE_DATE_EPOCH, else the last commit's,
# so the same sources give the same page.
set -eu
bin=$1 out=$2
name=$(basename "$bin")
command -v help2man >/dev/null || { echo "mpilens: help2man is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
export LC_ALL=C
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || stat -c %Y "$bin")
    export SOURCE_DATE_EPOCH
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-man.XXXXXX")
inc=$tmp/include
trap 'rm -rf "$tmp" "$out.tmp"' EXIT
# help2man takes the SYNOPSIS from a line starting "Usage:"; ours say "usage:", so it reads
# the help through a wrapper of the same name that capitalises that one word
cat >"$tmp/$name" <<EOF
#!/bin/sh
"$(cd "$(dirname "$bin")" && pwd)/$name" "\$@" | sed 's/^usage:/Usage:/'
EOF
chmod +x "$tmp/$name"

# roff for a block of plain text: backslashes, leading dots/quotes and minus signs escaped
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

case $name in
mpilens)
    what="static reports on how an MPI machine and MPI applications communicate"
    {
        echo "[COMMANDS]"
        echo "Each command's own help (mpilens COMMAND \\-\\-help):"
        "$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }' |
        while read -r c; do
            echo ".SS \"mpilens $c\""
            echo ".nf"
            "$bin" "$c" --help | roff
            echo ".fi"
        done
        cat <<'EOF'
[FILES]
An installed mpilens finds its files relative to its own executable, so a prefix can be
copied or moved (DESTDIR, environment modules):
.TP
.I PREFIX/share/mpilens/templates
report layouts and texts; \fBrules/\fR holds the rule base of \fBmpilens problems\fR
.TP
.I PREFIX/share/mpilens/fonts
DejaVu fonts of the figures and reports, with their licence
.TP
.I PREFIX/share/mpilens/samples
sample cubes, runs, profiles, stage logs and MPI applications
.TP
.I PREFIX/lib/mpilens
libmpilens\-trace.so (the trace collector preloaded by \fBmpilens trace\fR) and
mpilens\-trace\-recover
.PP
\fBmpilens version\fR prints the data directory in use.
[ENVIRONMENT]
.TP
.B MPILENS_DATADIR
directory holding fonts/ and templates/ instead of the installed one
.TP
.B MPILENS_RULES
rule directory of \fBmpilens problems\fR (default: templates/rules of the data directory)
.TP
.B MPILENS_TEMPLATES
directory of scale.txt, the sentences of \fBmpilens scale\fR
.TP
.B MPILENS_TRACE_DIR
trace directory of \fBmpilens trace\fR (default ./mpilens\-trace)
.TP
.B SOURCE_DATE_EPOCH
the date written into reports and files, for reproducible output
[SEE ALSO]
.BR mpilens\-bench (1),
.BR mpirun (1),
.BR otf2\-print (1)
EOF
    } >"$inc"
    ;;
mpilens-bench)
    what="all-pairs latency cube and point-to-point sweep of an MPI machine"
    cat >"$inc" <<'EOF'
[SEE ALSO]
.BR mpilens (1),
.BR mpirun (1)
EOF
    ;;
*) echo "mpilens: no man page for $name" >&2; exit 1 ;;
esac

mkdir -p "$(dirname "$out")"
version=$("$bin" --version | head -n 1 | awk '{ print $2 }')
help2man --no-info --section=1 --name="$what" --source="mpilens $version" \
    --manual="mpilens manual" --version-string="$version" --include="$inc" \
    --output="$out.tmp" "$tmp/$name"
mv "$out.tmp" "$out"
