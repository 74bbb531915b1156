#!/usr/bin/env bash
# `make install` / `make uninstall` (docs/install.md). The Makefile passes the directories:
#   scripts/install.sh install|uninstall
#   environment: BUILD, DESTDIR, prefix, mandir, docdir, INSTALL (the GNU variables)
# install writes every file with `install -m` and records it, with each directory it had to
# create, in PREFIX/share/mpilens/install-manifest; uninstall removes exactly the recorded
# files and then those directories that are empty. Paths in the manifest are without DESTDIR.
# bin/, lib/mpilens and share/mpilens stay under one prefix: an installed mpilens finds its
# files relative to its executable (common/datadir.h), so the prefix can be copied or moved.
set -eu
action=${1:-}
: "${BUILD:=build}" "${prefix:=/usr/local}" "${DESTDIR:=}" "${INSTALL:=install}"
: "${mandir:=$prefix/share/man}" "${docdir:=$prefix/share/doc/mpilens}"
bindir=$prefix/bin
pkglibdir=$prefix/lib/mpilens
pkgdatadir=$prefix/share/mpilens
man1dir=$mandir/man1
manifest=$pkgdatadir/install-manifest

die() { echo "mpilens install: $*" >&2; exit 1; }
for v in prefix mandir docdir; do
    case ${!v} in /*) ;; *) die "$v '${!v}' is not an absolute path" ;; esac
done

# mkdirs DIR: creates DIR and its missing parents under DESTDIR, recording each one made
# ("d DIR", parents first) so that uninstall can remove them again.
mkdirs() {
    local d=$1
    [ "$d" = / ] || [ -d "$DESTDIR$d" ] && return 0
    mkdirs "$(dirname "$d")"
    "$INSTALL" -d -m 0755 "$DESTDIR$d"
    echo "d $d" >>"$log"
}

# put MODE SRC DEST: installs one file and records it ("f DEST").
put() {
    mkdirs "$(dirname "$3")"
    echo "  INSTALL $DESTDIR$3"
    "$INSTALL" -m "$1" "$2" "$DESTDIR$3"
    echo "f $3" >>"$log"
}

# tree SRCDIR DESTDIR: every file under SRCDIR, executables 0755 and the rest 0644, in order.
tree() {
    local f
    while IFS= read -r f; do
        if [ -x "$f" ]; then put 0755 "$f" "$2/${f#"$1"/}"; else put 0644 "$f" "$2/${f#"$1"/}"; fi
    done < <(find "$1" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' | LC_ALL=C sort)
}

do_install() {
    local need f
    for need in "$BUILD/bin/mpilens" "$BUILD/bin/mpilens-bench" "$BUILD/lib/libmpilens-trace.so" \
                "$BUILD/lib/mpilens-trace-recover" "$BUILD/man/mpilens.1" "$BUILD/man/mpilens-bench.1"; do
        [ -e "$need" ] || die "$need is missing; run 'make all man' first"
    done
    log=$(mktemp "${TMPDIR:-/tmp}/mpilens-manifest.XXXXXX")
    # a reinstall keeps what earlier installs recorded (a directory they made is still ours)
    [ -f "$DESTDIR$manifest" ] && grep -v "^f $manifest\$" "$DESTDIR$manifest" >>"$log" || true
    # the manifest is written even when a step fails, so that uninstall can undo a partial install
    trap 'finish_manifest' EXIT
    [ -n "$DESTDIR" ] && mkdir -p "$DESTDIR"
    mkdirs "$pkgdatadir"
    put 0755 "$BUILD/bin/mpilens" "$bindir/mpilens"
    put 0755 "$BUILD/bin/mpilens-bench" "$bindir/mpilens-bench"
    put 0755 "$BUILD/lib/libmpilens-trace.so" "$pkglibdir/libmpilens-trace.so"
    put 0755 "$BUILD/lib/mpilens-trace-recover" "$pkglibdir/mpilens-trace-recover"
    tree templates "$pkgdatadir/templates"
    for f in fonts/*.ttf fonts/LICENSE-DejaVu.txt; do put 0644 "$f" "$pkgdatadir/$f"; done
    tree samples "$pkgdatadir/samples"
    put 0644 "$BUILD/man/mpilens.1" "$man1dir/mpilens.1"
    put 0644 "$BUILD/man/mpilens-bench.1" "$man1dir/mpilens-bench.1"
    put 0644 README.md "$docdir/README.md"
    tree docs "$docdir/docs"
}

finish_manifest() {
    local rc=$?
    echo "f $manifest" >>"$log"
    # one line per path: a reinstall records the same files again
    awk '!seen[$0]++' "$log" >"$log.u"
    "$INSTALL" -m 0644 "$log.u" "$DESTDIR$manifest" || rc=1
    rm -f "$log" "$log.u"
    [ "$rc" = 0 ] && echo "mpilens: installed under $DESTDIR$prefix (manifest $DESTDIR$manifest)"
    exit "$rc"
}

do_uninstall() {
    [ -f "$DESTDIR$manifest" ] ||
        die "no $DESTDIR$manifest: nothing was installed with this PREFIX and DESTDIR"
    local kind path
    while read -r kind path; do
        [ "$kind" = f ] && [ "$path" != "$manifest" ] || continue
        if [ -e "$DESTDIR$path" ] || [ -L "$DESTDIR$path" ]; then
            echo "  RM      $DESTDIR$path"
            rm -f "$DESTDIR$path"
        fi
    done <"$DESTDIR$manifest"
    # deepest first; a directory that holds something else stays
    local dirs
    dirs=$(awk '$1 == "d" { sub(/^d /, ""); print gsub("/", "/") "\t" $0 }' "$DESTDIR$manifest" |
           sort -t "$(printf '\t')" -k1,1nr -k2,2r | cut -f2-)
    rm -f "$DESTDIR$manifest"
    while IFS= read -r path; do
        [ -n "$path" ] && [ -d "$DESTDIR$path" ] || continue
        if rmdir "$DESTDIR$path" 2>/dev/null; then
            echo "  RMDIR   $DESTDIR$path"
        else
            echo "mpilens: kept $DESTDIR$path (not empty)"
        fi
    done <<<"$dirs"
    echo "mpilens: uninstalled from $DESTDIR$prefix"
}

case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*) die "usage: scripts/install.sh install|uninstall" ;;
esac
