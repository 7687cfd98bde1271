#!/bin/sh
# tests/install/deps.sh WORK - the packages make installs (tools/install-deps.sh), on stand-ins of
# dpkg-query, apt-get and sudo that install nothing: each apt-get holds a lock for a while and fails
# as dpkg does ("Could not get lock") when another one holds it.
#
# - `make deps` (make test's first step) is one apt-get, of every package a deps-* target names;
# - the deps-* targets started together by make -j2 (a narrow target's prerequisites) each get
#   their packages, one apt-get at a time, none refused.
# Environment: MAKE.
set -eu
work=$1
make=${MAKE:-make}
fail() { echo "test-deps: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work/bin"
work=$(cd "$work" && pwd)
# (installed.txt: what the stand-in apt-get "installed", which the stand-in dpkg-query then reports)
cat > "$work/bin/dpkg-query" <<STUB
#!/bin/sh
package=\$(eval echo \\\${\$#})
grep -qx "\$package" "$work/installed.txt" 2>/dev/null && printf 'install ok installed' && exit 0
exit 1
STUB
cat > "$work/bin/apt-get" <<STUB
#!/bin/sh
[ "\$1" = update ] && exit 0
mkdir "$work/dpkg-lock" 2>/dev/null || { echo "E: Could not get lock $work/dpkg-lock" >&2; echo refused >> "$work/refused.txt"; exit 100; }
echo "\$*" >> "$work/apt-get.txt"
sleep 1
for package in "\$@"; do case \$package in -*|install) ;; *) echo "\$package" >> "$work/installed.txt" ;; esac; done
rmdir "$work/dpkg-lock"
STUB
printf '#!/bin/sh\nexec "$@"\n' > "$work/bin/sudo"
chmod +x "$work/bin/dpkg-query" "$work/bin/apt-get" "$work/bin/sudo"
targets="deps-build deps-generator deps-test deps-mpi"
run() { # log, make arguments...
    log=$1
    shift
    env -u MAKEFLAGS -u MAKELEVEL PATH="$work/bin:$PATH" TMPDIR="$work" $make --no-print-directory "$@" > "$work/$log" 2>&1 ||
        { cat "$work/$log"; [ ! -e "$work/refused.txt" ] || fail "apt-get was refused its lock: two ran at once"; fail "make $* failed (above)"; }
}

# the deps-* targets, started together
run parts.log -j4 $targets
[ ! -e "$work/refused.txt" ] || fail "make -j4 $targets: two apt-get ran at once"
sort -u "$work/installed.txt" > "$work/parts.txt"
[ -s "$work/parts.txt" ] || fail "make $targets installed nothing"

# make deps: one transaction, every package
rm -f "$work/installed.txt" "$work/apt-get.txt"
run deps.log -j4 deps
[ "$(wc -l < "$work/apt-get.txt")" -eq 1 ] || { cat "$work/apt-get.txt"; fail "make deps ran apt-get $(wc -l < "$work/apt-get.txt") times (above), not once"; }
sort -u "$work/installed.txt" > "$work/all.txt"
missing=$(comm -23 "$work/parts.txt" "$work/all.txt")
[ -z "$missing" ] || fail "make deps does not install $(echo "$missing" | tr '\n' ' ')(a deps-* target does)"
echo "test-deps: make deps installs $(wc -l < "$work/all.txt") packages in one apt-get; make -j4 $targets installs theirs one apt-get at a time"
