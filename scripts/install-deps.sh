#!/usr/bin/env bash
# Installs the Debian packages mpilens needs, only those missing, and says what it does.
# Usage: scripts/install-deps.sh [--test|--fuzz]   (--test adds what only the test suite needs,
#   --fuzz what make fuzz needs)
set -eu
# libpnetcdf-dev (Parallel-NetCDF, built on Open MPI as libopenmpi-dev): mpilens-bench writes
# each rank's rows of the cube collectively, in the CDF-2 classic format network_test2 writes.
build_pkgs="build-essential pkg-config libnetcdf-dev netcdf-bin libcairo2-dev libhpdf-dev
  libopenmpi-dev openmpi-bin libpnetcdf-dev libgsl-dev poppler-utils fonts-dejavu-core
  libopen-trace-format2-dev otf2-tools libdw-dev help2man"
# python3-scipy / python3-sklearn: reference linkage and k-means in tests only; python3 parses
# SVG with its XML parser; qpdf / python3-pdfminer check the PDFs (test_pdfvalid); time gives
# /usr/bin/time -v for peak memory; slurm-wlm (slurmctld, slurmd, sbatch...) and munge run the
# Slurm sample under a real one-host Slurm (test_slurm_real, which starts and stops its own daemons);
# python3-netcdf4 reads the bench's NetCDF files as an independent reference (retest, bisection,
# compare, report gate tests).
test_pkgs="python3 python3-scipy python3-numpy python3-sklearn python3-netcdf4 python3-fastcluster
  python3-matplotlib qpdf python3-pdfminer time
  slurm-wlm munge"
# clang-14 builds the libFuzzer targets (make fuzz, docs/fuzz.md); Debian 12 ships libFuzzer
# (libclang_rt.fuzzer) and the sanitizer runtimes in libclang-rt-14-dev, which clang-14 only
# recommends; llvm-14 has llvm-symbolizer-14 for readable crash stacks.
fuzz_pkgs="clang-14 libclang-rt-14-dev llvm-14"
pkgs=$build_pkgs
[ "${1:-}" = "--test" ] && pkgs="$pkgs $test_pkgs"
[ "${1:-}" = "--fuzz" ] && pkgs="$pkgs $fuzz_pkgs"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "mpilens: installing missing Debian packages:$missing" >&2
if [ "$(id -u)" != 0 ]; then
    echo "mpilens: not root; run as root or install them with: apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends $missing >&2
echo "mpilens: packages installed" >&2
