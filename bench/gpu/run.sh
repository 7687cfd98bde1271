#!/bin/sh
# bench/gpu/run.sh BUILD_DIR [PAIRS] - issue 8's GPU benchmarks, as `make bench-gpu-build` built them,
# run without make or a compiler: the GPU machine needs BUILD_DIR/lib and BUILD_DIR/bench/gpu only.
# Prints a Markdown section for docs/benchmarks.md on stdout (progress on stderr):
#   1. calls: cheap calls through cubind against direct calls, interleaved rounds in one process;
#   2. epilog all: the fused epilogues against the plain matmul and against separate kernels (each
#      variant on the fastest of the heuristic's first 8 algorithms);
#   3. epilog layouts: the backward (plain, DRELU_BGRAD, DRELU + the bias-gradient kernel) on each of
#      the four operand layouts (A op T or N, G op N or T), tuned the same way; not checked (~20 s);
#   4. the fused forward through cubind (epilog fused) and linked directly (epilog_direct fused):
#      PAIRS pairs of processes (default 6) in the order cubind, direct, direct, cubind, ...; each
#      process chooses its algorithm as epilog all does, and the choices are listed (a warning if they differ);
#      the ratio of the medians of the two builds' medians;
#   5. the same for the fused backward (epilog backward): DRELU_BGRAD's time, cubind's or cuBLASLt's.
# Exit status: the number of runs that failed (a CUDA error or a wrong result).
set -u
build=$(cd "${1:-build}" && pwd) || exit 1
pairs=${2:-6}
gpu=$build/bench/gpu
timed_args="40 10" # timed runs and warm-up runs of each process of parts 4 and 5
failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run PROGRAM ARGS...: its output (stdout and stderr) into $tmp/out and onto stdout; a failure is counted and said.
run() {
    echo "bench/gpu/run.sh: $*" >&2
    "$@" > "$tmp/out" 2>&1
    status=$?
    cat "$tmp/out"
    if [ "$status" -ne 0 ]; then
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf '\n**FAILED**: `%s` exited with status %d\n' "$*" "$status"
        failed=$((failed + 1))
    fi
}

# The median of the numbers on stdin, one a line (nothing if none).
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2];
                                        else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "## On the GPU (\`make bench-gpu\`)"
echo
echo "Written by \`bench/gpu/run.sh\` (bench/gpu/*.c, built by bench/bench_gpu.mk). Timings are of this run."
echo
echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv,noheader |
        sed 's/^/- GPU (nvidia-smi: name, driver, memory, power limit, max SM clock): /'
else
    echo "- GPU: no nvidia-smi here; the programs name the device"
fi
# shellcheck disable=SC1091 # the machine's own file
echo "- Machine: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m), $(nproc) CPUs:$(grep -m 1 'model name' /proc/cpuinfo | cut -d : -f 2)"
echo "- Binaries: built from $(cat "$gpu/build-info.txt" 2> /dev/null || echo "? (no build-info.txt)")"
echo "- Command: \`sh bench/gpu/run.sh ${1:-build}${2:+ $2}\`"
echo

echo "### Cheap calls: cubind against direct calls (goal: time ratio ≤ 1.01)"
echo
run "$gpu/calls"
echo

echo "### The fused epilogues of the nvmath-python blog (goals: fused faster than unfused, ≥ 90% of the plain matmul)"
echo
run "$gpu/epilog" all
echo

echo "### The backward on each operand layout (why \`DRELU_BGRAD\` stays below 90% of the plain matmul)"
echo
run "$gpu/epilog" layouts
echo

# pairs MODE GOAL: epilog MODE (cubind) against epilog_direct MODE, $pairs pairs of processes in alternating
# order; a table, the ratio of the medians (against GOAL, a ratio; "" for none), the libraries and algorithms.
pairs() {
    mode=$1
    goal=$2
    args="$mode $timed_args"
    echo "\`epilog $args\` (cubind) and \`epilog_direct $args\` (the same source calling NVIDIA's functions," \
        "linked to libcublasLt, libcudart, libnvrtc and libcuda): one process each, $pairs pairs, the order of each" \
        "pair alternating; each process's median of 40 timed runs after 10 of warm-up."
    echo
    echo "| pair | first | cubind ms | direct ms | cubind / direct |"
    echo "|---|---|---|---|---|"
    : > "$tmp/cubind"
    : > "$tmp/direct"
    : > "$tmp/libraries"
    : > "$tmp/algos"
    : > "$tmp/failures"
    i=1
    while [ "$i" -le "$pairs" ]; do
        if [ $((i % 2)) -eq 1 ]; then order="epilog epilog_direct"; else order="epilog_direct epilog"; fi
        for program in $order; do
            echo "bench/gpu/run.sh: $program $args (pair $i)" >&2
            # shellcheck disable=SC2086 # args: three words
            "$gpu/$program" $args > "$tmp/out" 2>&1
            status=$?
            line=$(grep '^result ' "$tmp/out")
            if [ "$status" -ne 0 ] || [ -z "$line" ]; then
                failed=$((failed + 1))
                # shellcheck disable=SC2016 # the backquotes are Markdown
                printf '\n**FAILED** (pair %d): `%s %s` exited with status %d:\n\n```\n%s\n```\n' "$i" "$program" \
                    "$args" "$status" "$(tail -n 20 "$tmp/out")" >> "$tmp/failures"
                continue
            fi
            ms=$(echo "$line" | sed 's/^result median_ms=\([^ ]*\) .*/\1/')
            echo "$line" | sed 's/.* library=\([^ ]*\) .*/\1/' >> "$tmp/libraries"
            echo "$line" | sed 's/.* algo=//' >> "$tmp/algos"
            if [ "$program" = epilog ]; then echo "$ms" >> "$tmp/cubind"; c_ms=$ms; else echo "$ms" >> "$tmp/direct"; d_ms=$ms; fi
        done
        first=${order%% *}
        printf '| %d | %s | %s | %s | %s |\n' "$i" "$([ "$first" = epilog ] && echo cubind || echo direct)" \
            "${c_ms:-failed}" "${d_ms:-failed}" "$(awk -v c="${c_ms:-0}" -v d="${d_ms:-0}" 'BEGIN { if (d > 0) printf "%.4f", c / d; else print "-" }')"
        c_ms=""
        d_ms=""
        i=$((i + 1))
    done
    c_median=$(median < "$tmp/cubind")
    d_median=$(median < "$tmp/direct")
    cat "$tmp/failures"
    echo
    awk -v c="$c_median" -v d="$d_median" -v goal="$goal" 'BEGIN {
        if (c == "" || d == "") { print "Medians: not enough successful runs for a ratio."; exit }
        printf "Medians: cubind %.4f ms, direct %.4f ms; ratio **%.4f**", c, d, c / d
        if (goal != "") printf " (goal ≤ %s: %s)", goal, c / d <= goal ? "yes" : "**no**"
        print "." }'
    echo
    echo "libcublasLt timed by both builds: $(sort -u "$tmp/libraries" | tr '\n' ' ')"
    if [ "$(sort -u "$tmp/libraries" | wc -l)" -gt 1 ]; then
        echo "**Warning**: the two builds loaded different libcublasLt files: the ratio compares libraries, not cubind."
    fi
    echo "Algorithm (each process keeps the fastest of the heuristic's first 8, timed as in the section above):"
    sort "$tmp/algos" 2> /dev/null | uniq -c | sed 's/^ *\([0-9]*\) /- \1 process(es): /'
    if [ "$(sort -u "$tmp/algos" 2> /dev/null | wc -l)" -gt 1 ]; then
        echo
        echo "**Warning**: the runs did not all use the same algorithm: the ratio compares algorithms as well as cubind."
    fi
    echo
}

echo "### The fused forward (\`RELU_AUX_BIAS\`) through cubind against linked directly (goal: ratio ≤ 1.005)"
echo
pairs fused 1.005

echo "### The fused backward (\`DRELU_BGRAD\`) through cubind against linked directly (no goal: whose is its time?)"
echo
pairs backward ""

echo "$failed run(s) failed."
exit "$failed"
