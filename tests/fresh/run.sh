#!/bin/sh
# tests/fresh/run.sh WORK [COUNT] - README.md's set-up commands on a fresh Debian 12 (make fresh-machine).
#
# A minimal Debian 12 (debootstrap --variant=minbase bookworm) where git, make and gcc are installed
# as a user installs them (apt-get install git make gcc), kept in the cache once made
# ($CUBIND_FRESH_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/cubind/fresh); each run copies it to
# WORK/root, where the CUDA toolkit (CUDA_PATH, its real folder) is bind-mounted read-only with the
# ld.so.conf entry NVIDIA's packages install (/etc/ld.so.conf.d/*cuda*, then ldconfig), and a clean
# clone of this checkout's HEAD is made in /srv/cubind. The first COUNT commands of README.md's
# "Set up" block (all without COUNT; tests/fresh/readme_commands.py) run there as printed, as root,
# in a shell with an empty environment but HOME, PATH and LANG: nothing else of this machine (no
# package it installed, no releases cache) is there. The log: WORK/log; each command's time: WORK/times.
#
# Every mount is made in a mount namespace of its own (unshare), so none outlives the run, whatever
# stops it: removing WORK never reaches the toolkit or /dev. Needs root, debootstrap, unshare and
# Debian's archive (the base, and what the commands install and fetch).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 WORK [COUNT]" >&2; exit 2; }
work=$1 count=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd)
cuda=${CUDA_PATH:-/usr/local/cuda}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${CUBIND_FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cubind/fresh}
fail() { echo "fresh-machine: $*" >&2; exit 1; }

if [ "${1:-}" = --inside ]; then
    # (in the mount namespace: $2 the root, $3 the toolkit's real folder, $4 the script to run)
    root=$2 real_cuda=$3 script=$4
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --bind /dev "$root/dev"
    mount --bind /dev/pts "$root/dev/pts"
    mount -t tmpfs tmpfs "$root/dev/shm"
    mkdir -p "$root$real_cuda"
    mount --bind "$real_cuda" "$root$real_cuda"
    mount -o remount,bind,ro "$root$real_cuda"
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/sh "$script"
fi

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mount)"
for tool in debootstrap unshare chroot git; do
    command -v "$tool" > /dev/null || fail "needs $tool (make fresh-machine installs debootstrap)"
done
[ -e "$cuda/bin/nvcc" ] || fail "no CUDA toolkit at $cuda (CUDA_PATH)"
real_cuda=$(readlink -f "$cuda")

# --- the base: minbase Debian 12 with git, make and gcc, made once --------------------------------
base="$cache/bookworm-minbase"
if [ ! -e "$base/.complete" ]; then
    echo "fresh-machine: making $base (debootstrap --variant=minbase bookworm, then apt-get install git make gcc)"
    rm -rf "$base.tmp"
    mkdir -p "$cache"
    debootstrap --variant=minbase bookworm "$base.tmp" "$mirror" > "$cache/debootstrap.log" 2>&1 ||
        { tail -n 30 "$cache/debootstrap.log"; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
    cp /etc/resolv.conf "$base.tmp/etc/resolv.conf"
    chroot "$base.tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c \
        'apt-get update -q && apt-get install -y -q git make gcc && apt-get clean' >> "$cache/debootstrap.log" 2>&1 ||
        { tail -n 30 "$cache/debootstrap.log"; fail "installing git, make and gcc failed (log: $cache/debootstrap.log)"; }
    touch "$base.tmp/.complete"
    mv "$base.tmp" "$base"
fi

# --- this run's machine -----------------------------------------------------------------------------
work=$(mkdir -p "$work" && cd "$work" && pwd)
root="$work/root"
rm -rf "$root"
cp -a "$base" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# the toolkit where CUDA_PATH names it (a link to its real folder, as NVIDIA's packages make it)
if [ "$real_cuda" != "$cuda" ]; then
    mkdir -p "$root$(dirname "$cuda")"
    ln -sfn "$real_cuda" "$root$cuda"
fi
for conf in /etc/ld.so.conf.d/*cuda*; do
    [ -e "$conf" ] && cp "$conf" "$root/etc/ld.so.conf.d/"
done
git clone --quiet --no-hardlinks "$checkout" "$root/srv/cubind"
commit=$(git -C "$root/srv/cubind" rev-parse --short HEAD)

commands=$("${PYTHON:-/usr/bin/python3}" "$here/readme_commands.py" "$checkout/README.md" "$count")
{
    echo 'set -e'
    echo 'ldconfig  # as the toolkit package did when it installed its ld.so.conf entry'
    echo 'cd /srv/cubind'
    printf '%s\n' "$commands" | while IFS= read -r command; do
        printf 'echo "fresh-machine: \$ %s"\n' "$(printf '%s' "$command" | sed 's/["$`\\]/\\&/g')"
        echo 'started=$(date +%s)'
        printf '%s\n' "$command"
        printf 'echo "$(( $(date +%%s) - started )) s: %s" >> /fresh-times\n' "$(printf '%s' "$command" | sed 's/[ ]*#.*//; s/["$`\\]/\\&/g')"
    done
} > "$root/fresh-commands.sh"
echo "fresh-machine: Debian $(cat "$root/etc/debian_version") minbase with git, make, gcc; toolkit $real_cuda (read-only);" \
     "cubind $commit; running:"
printf '%s\n' "$commands" | sed 's/^/    /'
started=$(date +%s)
status=0
unshare --mount --propagation private sh "$here/run.sh" --inside "$root" "$real_cuda" /fresh-commands.sh \
    > "$work/log" 2>&1 || status=$?
cp "$root/fresh-times" "$work/times" 2>/dev/null || : > "$work/times"
tail -n 25 "$work/log"
echo "fresh-machine: exit status $status after $(( $(date +%s) - started )) s (log: $work/log); each command:"
sed 's/^/    /' "$work/times"
exit $status
