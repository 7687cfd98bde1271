#!/bin/sh
# Fetch the Debian packages of the older CUDA releases that generator/libraries.toml lists
# ([[release]]) and keep only what cubind needs, in the releases cache (docs/releases.md):
#
#   tools/fetch-cuda-releases.sh headers     usr/include of each release's header packages
#                                            -> <cache>/<release>/include   (make fetch-releases)
#   tools/fetch-cuda-releases.sh libraries   the shared objects of its library packages
#                                            -> <cache>/<release>/lib       (make fetch-release-libs)
#   tools/fetch-cuda-releases.sh libraries ARCH
#                                            those of its packages for another Debian architecture
#                                            ([release.architecture.ARCH]: arm64)
#                                            -> <cache>/<release>/lib-ARCH  (make test-aarch64)
#
# <cache> is $CUBIND_RELEASES_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/cubind/releases.
# A release whose stamp (<cache>/<release>/.<set>[-ARCH].stamp) lists the configured packages and
# versions is not fetched again: a second run does nothing and needs no network.
#
# apt-get runs under a private apt state made for each release (and architecture) in
# <cache>/.apt/<release>[-ARCH] (tools/fetch-debian-packages.sh): its own configuration, sources
# list, package lists, cache and an empty dpkg status. The system's apt configuration and state are
# never read or changed. Packages are downloaded at their configured versions and checked by apt
# against the suite's signed index (the release's keyring); each .deb is deleted once extracted. A
# release may name more suites (extra_suites: Debian's experimental holds only what differs from
# unstable) and allow their Release files past Valid-Until (check_valid_until = false): on its own
# source lines only.
set -eu

usage() {
    echo "usage: $0 headers|libraries [ARCH]" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
which=$1
arch=${2:-}
case $which in
    headers) dest=include members=./usr/include; [ -z "$arch" ] || usage ;;
    libraries) dest=lib${arch:+-$arch} members='./usr/lib/*.so*' ;;
    *) usage ;;
esac

for tool in dpkg flock; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "cubind: $0 needs $tool (Debian's dpkg, util-linux)" >&2
        exit 1
    fi
done

PYTHON=${PYTHON:-/usr/bin/python3}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=$(cd "$root" && "$PYTHON" -m generator.release_headers cache)
# shellcheck disable=SC2086 # no architecture: no argument
plan=$(cd "$root" && "$PYTHON" -m generator.release_headers plan "$which" $arch)
[ -n "$plan" ] || exit 0
tab=$(printf '\t')
stamp_name=.$which${arch:+-$arch}.stamp

mkdir -p "$cache"
# One fetch at a time: `make -j` may run two targets that each start one.
exec 9>"$cache/.lock"
flock 9

total_start=$(date +%s)
fetched=0
for release in $(printf '%s\n' "$plan" | cut -f1 | uniq); do
    lines=$(printf '%s\n' "$plan" | awk -F"$tab" -v r="$release" '$1 == r')
    want=$(printf '%s\n' "$lines" | cut -f6,7 | tr "$tab" '=')
    stamp="$cache/$release/$stamp_name"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        continue
    fi
    start=$(date +%s)
    IFS="$tab" read -r _ suite archive _ _ _ _ <<EOF
$lines
EOF
    echo "cubind: fetching the $which${arch:+ ($arch)} of CUDA $release (Debian $suite) into $cache/$release/$dest"
    state="$cache/.apt/$release${arch:+-$arch}"
    mkdir -p "$state" "$cache/$release"
    # One line per suite of the release, with its keyring (and check-valid-until=no where the
    # release's configuration allows an expired Release file: that release's lines only).
    (cd "$root" && "$PYTHON" -m generator.release_headers sources "$release") > "$state/sources.list"
    rm -f "$stamp"
    work=$(mktemp -d "$cache/$release/.fetch.XXXXXX")
    # shellcheck disable=SC2086 # the pinned packages are meant to split
    bytes=$(sh "$root/tools/fetch-debian-packages.sh" "$state" "$state/sources.list" \
        "${arch:-$(dpkg --print-architecture)}" "$work/tree" "$members" $want) || {
        rm -rf "$work"
        echo "cubind: fetching CUDA $release from $archive failed" >&2
        exit 1
    }
    if [ "$which" = headers ]; then
        rm -rf "${cache:?}/$release/$dest"
        mv "$work/tree/usr/include" "$cache/$release/$dest"
    else
        mkdir "$work/lib"
        find "$work/tree/usr/lib" \( -type f -o -type l \) -name '*.so*' -exec mv {} "$work/lib/" \;
        rm -rf "${cache:?}/$release/$dest"
        mv "$work/lib" "$cache/$release/$dest"
    fi
    rm -rf "$work"
    printf '%s\n' "$want" > "$stamp"
    fetched=$((fetched + bytes))
    kept=$(du -sm "$cache/$release/$dest" | cut -f1)
    echo "cubind: CUDA $release: $((bytes / 1000000)) MB downloaded, $kept MB kept, $(( $(date +%s) - start )) s"
done
if [ "$fetched" -gt 0 ]; then
    echo "cubind: $which fetched: $((fetched / 1000000)) MB in $(( $(date +%s) - total_start )) s"
fi
