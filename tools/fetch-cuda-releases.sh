#!/bin/sh
# Fetch the Debian packages of the older CUDA releases that generator/libraries.toml lists
# ([[release]]) and keep only what cubind needs, in the releases cache (docs/releases.md):
#
#   tools/fetch-cuda-releases.sh headers     usr/include of each release's header packages
#                                            -> <cache>/<release>/include   (make fetch-releases)
#   tools/fetch-cuda-releases.sh libraries   the shared objects of its library packages
#                                            -> <cache>/<release>/lib       (make fetch-release-libs)
#
# <cache> is $CUBIND_RELEASES_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/cubind/releases.
# A release whose stamp (<cache>/<release>/.<set>.stamp) lists the configured packages and
# versions is not fetched again: a second run does nothing and needs no network.
#
# apt-get runs under a private apt state made for each release in <cache>/.apt/<release>: its own
# configuration (APT_CONFIG; none of /etc/apt is read), sources list, package lists, cache and an
# empty dpkg status. The system's apt configuration and state are never read or changed. Packages
# are downloaded at their configured versions and checked by apt against the suite's signed index
# (the release's keyring); each .deb is deleted once extracted. A release may name more suites
# (extra_suites: Debian's experimental holds only what differs from unstable) and allow their
# Release files past Valid-Until (check_valid_until = false): on its own source lines only.
set -eu

usage() {
    echo "usage: $0 headers|libraries" >&2
    exit 2
}
[ $# -eq 1 ] || usage
which=$1
case $which in
    headers) dest=include ;;
    libraries) dest=lib ;;
    *) usage ;;
esac

for tool in apt-get dpkg-deb tar flock; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "cubind: $0 needs $tool (Debian's apt, dpkg, tar, util-linux)" >&2
        exit 1
    fi
done

PYTHON=${PYTHON:-/usr/bin/python3}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=$(cd "$root" && "$PYTHON" -m generator.release_headers cache)
plan=$(cd "$root" && "$PYTHON" -m generator.release_headers plan "$which")
[ -n "$plan" ] || exit 0
tab=$(printf '\t')

mkdir -p "$cache"
# One fetch at a time: `make -j` may run two targets that each start one.
exec 9>"$cache/.lock"
flock 9

# The release's private apt state (tools/debian-apt.sh), its package lists brought up to date.
# $1 release, $2 suite, $3 archive, $4 components (comma-separated), $5 keyring (the sources.list
# itself is the configuration's: generator.release_headers sources)
. "$root/tools/debian-apt.sh"
apt_state() {
    mkdir -p "$cache/.apt/$1"
    # One line per suite of the release, with its keyring (and check-valid-until=no where the
    # release's configuration allows an expired Release file: that release's lines only).
    (cd "$root" && "$PYTHON" -m generator.release_headers sources "$1") > "$cache/.apt/$1/sources.list"
    apt_private_state "$cache/.apt/$1" "$5" "$2 ($3)"
}

total_start=$(date +%s)
fetched=0
for release in $(printf '%s\n' "$plan" | cut -f1 | uniq); do
    lines=$(printf '%s\n' "$plan" | awk -F"$tab" -v r="$release" '$1 == r')
    want=$(printf '%s\n' "$lines" | cut -f6,7 | tr "$tab" '=')
    stamp="$cache/$release/.$which.stamp"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        continue
    fi
    start=$(date +%s)
    IFS="$tab" read -r _ suite archive components keyring _ _ <<EOF
$lines
EOF
    echo "cubind: fetching the $which of CUDA $release (Debian $suite) into $cache/$release"
    apt_state "$release" "$suite" "$archive" "$components" "$keyring"
    mkdir -p "$cache/$release"
    rm -f "$stamp"
    work=$(mktemp -d "$cache/$release/.fetch.XXXXXX")
    mkdir "$work/debs" "$work/tree"
    bytes=0
    for pinned in $want; do
        # shellcheck disable=SC2086
        (cd "$work/debs" && apt-get -q $APT_OPTIONS download "$pinned" >"$work/download.log" 2>&1) || {
            cat "$work/download.log" >&2
            echo "cubind: apt-get download $pinned failed" >&2
            rm -rf "$work"
            exit 1
        }
        deb=$(ls "$work/debs"/*.deb)
        bytes=$((bytes + $(stat -c %s "$deb")))
        if [ "$which" = headers ]; then
            dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/tree" ./usr/include
        else
            dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/tree" --wildcards './usr/lib/*.so*'
        fi
        rm -f "$deb"
    done
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
