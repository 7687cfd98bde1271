#!/bin/sh
# abi/compare.sh WHAT BASELINE CURRENT - compare sorted lines with the checked-in baseline.
# A line of the baseline missing from CURRENT (removed, or changed: a changed value is a removed
# line and an added one) fails; lines only in CURRENT are additions: reported, accepted.
set -eu
what=$1 baseline=$2 current=$3
removed=$(LC_ALL=C comm -23 "$baseline" "$current")
added=$(LC_ALL=C comm -13 "$baseline" "$current")
if [ -n "$removed" ]; then
    echo "abi: $what: removed or changed since $baseline (an ABI break):"
    echo "$removed" | sed 's/^/  - /'
    [ -z "$added" ] || echo "$added" | sed 's/^/  + /'
    echo "abi: if the break is intended, raise CUBIND_VERSION_MAJOR in include/cubind/version.h"
    echo "     (while it is 0: CUBIND_VERSION_MINOR) and the version node in abi/libcubind.map,"
    echo "     and run 'make abi-baseline'."
    exit 1
fi
if [ -n "$added" ]; then
    echo "abi: $what: $(echo "$added" | wc -l) additions, compatible (run 'make abi-baseline' to record them):"
    echo "$added" | head -n 10 | sed 's/^/  + /'
    [ "$(echo "$added" | wc -l)" -le 10 ] || echo "  ..."
else
    echo "abi: $what: $(wc -l < "$current") lines, identical to $baseline"
fi
