#!/usr/bin/env bash
# Build the Level Zero loader's null driver (libze_null.so: it answers every call with success and computes
# nothing) from the distribution's own level-zero source package, for the API-flow test of the levelzero driver.
#
# Usage: build-null-driver.sh
# Prints the folder that holds libze_null.so.1 on the last line of stdout and exits 0; or exits 77 (the
# ctest skip code) with the reason on stderr when the source package cannot be fetched or built here.
#
# The source is that of the installed libze1 (so the null driver matches the loader that loads it), fetched with
# `apt-get source --download-only` through a private apt configuration (a deb-src line of the distribution's
# release; nothing under /etc/apt is touched and it works without root). The result is cached in
#   ${HCL_ZE_NULL_DIR:-${HCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hcl}/ze-null-<version>}
# and reused when present. Needs: apt-get, dpkg-source (dpkg-dev), cmake, a C++ compiler, and the network the
# first time.
set -u
set -o pipefail

skip() {
    echo "build-null-driver: SKIP: $*" >&2
    exit 77
}
log() { echo "build-null-driver: $*" >&2; }

command -v dpkg-query >/dev/null 2>&1 || skip "dpkg-query not found: not a Debian/Ubuntu system"
version=$(dpkg-query -W -f='${Version}' libze1 2>/dev/null) || version=""
[ -n "$version" ] || skip "libze1 (the Level Zero loader) is not installed"
upstream=${version#*:}
upstream=${upstream%-*}

cache_root=${HCL_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-${TMPDIR:-/tmp}}/.cache}/hcl}
dest=${HCL_ZE_NULL_DIR:-$cache_root/ze-null-$version}
if [ -e "$dest/lib/libze_null.so.1" ] && [ -e "$dest/stamp" ]; then
    log "cached: $dest/lib ($(cat "$dest/stamp"))"
    echo "$dest/lib"
    exit 0
fi

for tool in apt-get dpkg-source cmake; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found (needed to fetch and build the level-zero source package)"
done
command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || skip "no C++ compiler (the null driver is C++)"

mkdir -p "$(dirname "$dest")" || skip "cannot create $(dirname "$dest")"
# One builder at a time (parallel test runs share the cache); the others wait and then reuse the result.
lock="$dest.lock"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$lock" || skip "cannot open the lock file $lock"
    flock -w 900 9 || skip "timed out waiting for another build of the null driver ($lock)"
    if [ -e "$dest/lib/libze_null.so.1" ] && [ -e "$dest/stamp" ]; then
        log "cached (built meanwhile): $dest/lib"
        echo "$dest/lib"
        exit 0
    fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/hcl-ze-null.XXXXXX") || skip "mktemp failed"
trap 'rm -rf "$work"' EXIT

# The deb-src line of this distribution's release.
. /etc/os-release 2>/dev/null || true
case "${ID:-}" in
debian) src_line="deb-src http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} main" ;;
ubuntu) src_line="deb-src http://archive.ubuntu.com/ubuntu ${VERSION_CODENAME:-noble} universe" ;;
*) skip "unknown distribution '${ID:-?}': only Debian and Ubuntu source packages are known" ;;
esac
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src" "$work/etc"
echo "$src_line" >"$work/etc/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/etc/sources.list" -o "Dir::Etc::SourceParts=$work/etc"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "Debug::NoLocking=1"
          -o "APT::Sandbox::User=$(id -un)" -o "Acquire::Retries=2")
log "fetching level-zero $version sources ($src_line)"
# apt-get update exits 0 even when it could fetch nothing: look for the Sources index it should have written.
if ! apt-get "${apt_opts[@]}" -q update >"$work/apt-update.log" 2>&1 ||
        ! ls "$work"/lists/*Sources* >/dev/null 2>&1; then
    tail -n 5 "$work/apt-update.log" >&2
    skip "apt-get update could not fetch the Sources index of '$src_line' (no network?)"
fi
if ! (cd "$work/src" && apt-get "${apt_opts[@]}" -q source --download-only "level-zero=$version") \
        >"$work/apt-source.log" 2>&1; then
    tail -n 5 "$work/apt-source.log" >&2
    skip "apt-get source --download-only level-zero=$version failed"
fi
dsc=$(ls "$work"/src/level-zero_*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || skip "no .dsc was downloaded for level-zero $version"
if ! dpkg-source --no-check -x "$dsc" "$work/src/level-zero" >"$work/dpkg-source.log" 2>&1; then
    tail -n 5 "$work/dpkg-source.log" >&2
    skip "dpkg-source -x $(basename "$dsc") failed"
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
log "building ze_null from level-zero $upstream"
if ! cmake -S "$work/src/level-zero" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        >"$work/configure.log" 2>&1; then
    tail -n 20 "$work/configure.log" >&2
    skip "cmake configure of level-zero $upstream failed"
fi
if ! cmake --build "$work/build" --target ze_null -j "${HCL_JOBS:-2}" >"$work/build.log" 2>&1; then
    tail -n 20 "$work/build.log" >&2
    skip "building ze_null from level-zero $upstream failed"
fi
lib=$(find "$work/build" -name 'libze_null.so*' -print | head -n 1)
[ -n "$lib" ] || skip "the build produced no libze_null.so"

# Into place: a fresh folder, renamed, so a reader never sees half of it.
stage="$dest.tmp.$$"
rm -rf "$stage"
mkdir -p "$stage/lib" || skip "cannot create $stage"
cp -a "$(dirname "$lib")"/libze_null.so* "$stage/lib/" || skip "copying libze_null.so failed"
echo "level-zero $version, ze_null built $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(basename "$dsc")" >"$stage/stamp"
rm -rf "$dest"
mv "$stage" "$dest" || skip "cannot move $stage to $dest"
log "built: $dest/lib"
echo "$dest/lib"
