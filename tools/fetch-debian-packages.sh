#!/bin/sh
# Download Debian packages at exact versions under a private apt state and unpack parts of them:
#
#   tools/fetch-debian-packages.sh STATE SOURCES ARCH TREE 'MEMBER...' PACKAGE=VERSION...
#
# STATE     the private apt state (made, its package lists brought up to date): its own configuration
#           (APT_CONFIG; none of /etc/apt is read), package lists, cache and an empty dpkg status. The
#           system's apt configuration, state and dpkg architectures are never read or changed.
# SOURCES   the sources.list to use (each line with its signed-by keyring: apt checks every package
#           against the suite's signed index)
# ARCH      the Debian architecture of the packages (amd64, arm64): apt's own for this state only
# TREE      where each package's MEMBERs are unpacked (tar members of its data, with wildcards:
#           './usr/include', './usr/lib/*.so*'); each .deb is deleted once unpacked
#
# Prints the bytes downloaded as its last line. tools/fetch-cuda-releases.sh fetches the CUDA
# releases with it, tests/aarch64/aarch64.mk the target's own packages of the cross-built tests.
set -eu
if [ $# -lt 6 ]; then
    echo "usage: $0 STATE SOURCES ARCH TREE 'MEMBER...' PACKAGE=VERSION..." >&2
    exit 2
fi
state=$1 sources=$2 arch=$3 tree=$4 members=$5
shift 5
for tool in apt-get dpkg-deb tar; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "cubind: $0 needs $tool (Debian's apt, dpkg, tar)" >&2
        exit 1
    fi
done
for keyring in $(sed -n 's/.*signed-by=\([^] ]*\).*/\1/p' "$sources"); do
    if [ ! -r "$keyring" ]; then
        echo "cubind: keyring $keyring is missing: install Debian's debian-archive-keyring" >&2
        exit 1
    fi
done

mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/trusted.gpg.d" "$state/preferences.d" "$tree"
: > "$state/status"
[ "$sources" = "$state/sources.list" ] || cp "$sources" "$state/sources.list"
# Read instead of /etc/apt/apt.conf and /etc/apt/apt.conf.d: nothing of the system's applies.
cat > "$state/apt.conf" <<CONF
Dir::Etc::Main "/dev/null";
Dir::Etc::Parts "/dev/null";
CONF
options="-o Dir::Etc::SourceList=$state/sources.list -o Dir::Etc::SourceParts=/dev/null
    -o Dir::Etc::TrustedParts=$state/trusted.gpg.d -o Dir::Etc::Trusted=/dev/null
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=$state/preferences.d
    -o Dir::State=$state -o Dir::State::Lists=$state/lists -o Dir::State::Status=$state/status
    -o Dir::Cache=$state/cache -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    -o Acquire::Languages=none -o APT::Get::AllowUnauthenticated=false
    -o APT::Architecture=$arch -o APT::Architectures=$arch"
if [ "$(id -u)" -eq 0 ]; then
    # apt, as root, downloads as the _apt user, who cannot write to a cache in root's home.
    options="$options -o APT::Sandbox::User=root"
fi
export APT_CONFIG="$state/apt.conf"
# shellcheck disable=SC2086 # the options are meant to split (none holds a space)
apt-get -q $options update >"$state/update.log" 2>&1 || {
    cat "$state/update.log" >&2
    echo "cubind: apt-get update of $sources ($arch) failed" >&2
    exit 1
}

debs=$(mktemp -d "$state/debs.XXXXXX")
trap 'rm -rf "$debs"' EXIT
bytes=0
for pinned in "$@"; do
    # shellcheck disable=SC2086
    (cd "$debs" && apt-get -q $options download "$pinned" >"$state/download.log" 2>&1) || {
        cat "$state/download.log" >&2
        echo "cubind: apt-get download $pinned ($arch) failed" >&2
        exit 1
    }
    deb=$(ls "$debs"/*.deb)
    bytes=$((bytes + $(stat -c %s "$deb")))
    # the members are split into words, not matched against this folder's files: tar matches them
    set -f
    # shellcheck disable=SC2086
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tree" --wildcards $members
    set +f
    rm -f "$deb"
done
echo "$bytes"
