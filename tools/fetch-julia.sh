#!/bin/sh
# tools/fetch-julia.sh fetch|path PACKAGE=VERSION SUITE - Debian's Julia (julia=1.5.3+dfsg-3 of bullseye:
# make fetch-julia, tests/julia/julia.mk), for the tests of the Julia module, into the Julia cache:
#
#   <cache>/<version>/cubind-bin/julia     runs it (its libraries first on LD_LIBRARY_PATH); `path`
#                                          prints this path, `fetch` fetches what it runs
#
# <cache> is $CUBIND_JULIA_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/cubind/julia. apt-get runs
# under a private apt state (tools/debian-apt.sh: nothing of the system's apt configuration or state
# read or changed) and resolves what the package needs as on a system with nothing installed;
# every package it names is downloaded, checked against the suite's signed index and extracted,
# except the C library's (libc6: a program runs with the system's dynamic loader, whose C library
# it must have). A version whose stamp lists what was extracted is not fetched again: a second run
# does nothing and needs no network.
set -eu
if [ $# -ne 3 ] || { [ "$1" != fetch ] && [ "$1" != path ]; }; then
    echo "usage: $0 fetch|path PACKAGE=VERSION SUITE" >&2
    exit 2
fi
action=$1 pinned=$2 suite=$3
archive=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CUBIND_JULIA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cubind/julia}
version=${pinned#*=}
dest="$cache/${version%%+*}"
stamp="$dest/.stamp"
[ "$action" = path ] && { echo "$dest/cubind-bin/julia"; exit 0; }
[ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$pinned $suite" ] && exit 0

for tool in apt-get dpkg-deb flock; do
    command -v "$tool" >/dev/null 2>&1 || { echo "cubind: $0 needs $tool (Debian's apt, dpkg, util-linux)" >&2; exit 1; }
done
mkdir -p "$cache"
exec 9>"$cache/.lock"  # one fetch at a time
flock 9
[ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$pinned $suite" ] && exit 0
start=$(date +%s)
echo "cubind: fetching $pinned (Debian $suite) into $dest"
. "$root/tools/debian-apt.sh"
mkdir -p "$cache/.apt/$suite"
echo "deb [signed-by=$keyring] $archive $suite main" > "$cache/.apt/$suite/sources.list"
apt_private_state "$cache/.apt/$suite" "$keyring" "$suite ($archive)"
# What apt would install, with nothing installed: the package and everything it depends on.
# shellcheck disable=SC2086 # the options are meant to split
packages=$(apt-get -q $APT_OPTIONS -s install --no-install-recommends "$pinned" | awk '$1 == "Inst" { gsub(/[()]/, "", $3); print $2 "=" $3 }')
[ -n "$packages" ] || { echo "cubind: apt-get resolves nothing for $pinned" >&2; exit 1; }
rm -rf "$dest"
work=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/debs" "$work/tree"
# shellcheck disable=SC2086
(cd "$work/debs" && apt-get -q $APT_OPTIONS download $packages > "$work/download.log" 2>&1) || {
    cat "$work/download.log" >&2
    echo "cubind: apt-get download of $pinned and its dependencies failed" >&2
    exit 1
}
bytes=0
for deb in "$work"/debs/*.deb; do
    bytes=$((bytes + $(stat -c %s "$deb")))
    case $(basename "$deb") in libc6_*) continue ;; esac
    dpkg-deb -x "$deb" "$work/tree"
done
rm -rf "$work/tree/usr/share/doc" "$work/tree/usr/share/man" "$work/tree/usr/share/locale"
libdir=$(cd "$work/tree" && echo usr/lib/*-linux-gnu/julia)
if [ ! -x "$work/tree/usr/bin/julia" ] || [ ! -d "$work/tree/$libdir" ]; then
    echo "cubind: $pinned has no usr/bin/julia and julia's library folder" >&2
    exit 1
fi
triplet=$(basename "$(dirname "$libdir")")
mkdir "$work/tree/cubind-bin"
cat > "$work/tree/cubind-bin/julia" <<EOF_RUN
#!/bin/sh
# $pinned of Debian $suite, fetched by cubind's tools/fetch-julia.sh: run with its own libraries.
root=\$(cd "\$(dirname "\$0")/.." && pwd)
LD_LIBRARY_PATH="\$root/$libdir:\$root/usr/lib/$triplet:\$root/lib/$triplet\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$root/usr/bin/julia" "\$@"
EOF_RUN
chmod +x "$work/tree/cubind-bin/julia"
"$work/tree/cubind-bin/julia" --startup-file=no -e 'VERSION >= v"1.5" || exit(1)' ||
    { echo "cubind: the fetched julia does not run" >&2; exit 1; }
mv "$work/tree" "$dest"
{ echo "$pinned $suite"; echo "$packages"; } > "$stamp"
echo "cubind: $pinned: $(echo "$packages" | wc -l) packages, $((bytes / 1000000)) MB downloaded, $(du -sm "$dest" | cut -f1) MB kept, $(( $(date +%s) - start )) s"
