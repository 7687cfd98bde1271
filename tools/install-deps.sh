#!/bin/sh
# Install the Debian packages named on the command line when they are missing
# (the generator needs python3-clang-14 and python3-jinja2, the tests
# libcmocka-dev and python3-pytest). Does nothing when all are installed.
#
# One apt-get at a time: `make -j` may start two targets that each install their part (dpkg's
# lock would refuse the second: "Could not get lock /var/lib/dpkg/lock-frontend"), so the check
# and the install are done holding a lock of our own; `make deps` installs everything at once.
set -eu
missing_of() {
    missing=""
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing="$missing $package"
        fi
    done
}
missing_of "$@"
[ -z "$missing" ] && exit 0
lock="${TMPDIR:-/tmp}/cubind-install-deps.$(id -u).lock"
exec 9>"$lock"
flock 9
missing_of "$@" # what another run installed while this one waited is not installed again
[ -z "$missing" ] && exit 0
echo "cubind: installing Debian packages:$missing"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # the package list is meant to split
if ! $sudo apt-get install -y -q --no-install-recommends $missing; then
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends $missing
fi
