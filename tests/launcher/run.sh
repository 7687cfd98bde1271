#!/bin/sh
# tests/launcher/run.sh BUILD_DIR - ranks started by real launchers, on a machine without a GPU
# (make test-launcher builds what it runs and installs Open MPI first):
#   - tests/launcher/driver.c built with MPI, under mpirun: every rank's rank and local rank, and
#     rank 0's id in every rank (MPI_Bcast); a rank that is not ready stops them all
#   - the same without MPI, under mpirun (Open MPI's variables) and from a shell (RANK/WORLD_SIZE):
#     the id over TCP
#   - examples/allreduce_launcher and its MPI build: each rank exits 77 with "SKIP (no GPU/driver)"
#     after the ranks met (alone, over TCP, with NCCL_COMM_ID, under mpirun); a missing rank ends
#     the meeting within RENDEZVOUS_TIMEOUT; bad variables exit 1 with the reason.
# Every run is bounded (timeout 60 s; RENDEZVOUS_TIMEOUT 20 s, or 1 s where a rank is missing).
# Prints "N passed, N failed"; exit status: the number failed.
set -u
build=$(cd "${1:-build}" && pwd)
examples=$build/examples
drivers=$build/test/launcher
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0

# Only the variables each case sets: none from the caller's environment (a CI job under Slurm).
unset RANK WORLD_SIZE LOCAL_RANK OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK \
      PMI_RANK PMI_SIZE MPI_LOCALRANKID SLURM_PROCID SLURM_NTASKS SLURM_LOCALID NCCL_COMM_ID MASTER_ADDR \
      MASTER_PORT DRIVER_NOT_READY
export RENDEZVOUS_TIMEOUT=20
# Open MPI refuses to start as root without these (and needs --oversubscribe past this host's cores).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under SAN=address: Open MPI keeps what its components allocated (LeakSanitizer cannot name them:
# they are unloaded by then), so the MPI-linked programs run without the leak check.
MPI_LEAKS=ASAN_OPTIONS=detect_leaks=0

# begin NAME: a case; its output goes to $log. Each check that fails marks it failed.
begin() {
    case_name=$1
    log=$out/$((passed + failed)).log
    case_ok=1
    : > "$log"
}
fail() {
    echo "FAIL: $case_name: $*"
    case_ok=0
}
end() {
    if [ "$case_ok" = 1 ]; then
        echo "ok: $case_name"
        passed=$((passed + 1))
    else
        sed 's/^/    | /' "$log"
        failed=$((failed + 1))
    fi
}

# status EXPECTED COMMAND...: runs the command (bounded), its output into $log.
status() {
    expected=$1
    shift
    timeout 60 "$@" > "$log" 2>&1
    code=$?
    [ "$code" = "$expected" ] || fail "exit status $code, expected $expected: $*"
}
# lines N PATTERN: exactly N lines of $log match the extended regular expression.
lines() {
    n=$(grep -c -E -- "$2" "$log")
    [ "$n" = "$1" ] || fail "$n line(s) match /$2/, expected $1"
}
# one_id N: N ranks reported an id, all the same one.
one_id() {
    lines "$1" " id [0-9a-f]{16} "
    n=$(grep -o -E " id [0-9a-f]{16} " "$log" | sort -u | wc -l)
    [ "$n" = 1 ] || fail "$n different ids"
}
free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# shell_ranks N EXPECTED COMMAND...: N ranks started from this shell (RANK, WORLD_SIZE, LOCAL_RANK;
# the caller exports the meeting point), each expected to exit EXPECTED; outputs into $log.
shell_ranks() {
    ranks=$1
    expected=$2
    shift 2
    r=$((ranks - 1))
    pids=""
    while [ "$r" -ge 0 ]; do
        RANK=$r WORLD_SIZE=$ranks LOCAL_RANK=$r timeout 60 "$@" > "$log.$r" 2>&1 &
        pids="$pids $!"
        r=$((r - 1))
    done
    for pid in $pids; do
        wait "$pid"
        code=$?
        [ "$code" = "$expected" ] || fail "a rank exited with $code, expected $expected"
    done
    r=0
    while [ "$r" -lt "$ranks" ]; do
        cat "$log.$r" >> "$log"
        r=$((r + 1))
    done
}

for program in "$drivers/driver" "$drivers/driver_mpi" "$examples/allreduce_launcher" \
               "$examples/allreduce_launcher_mpi"; do
    [ -x "$program" ] || { echo "FAIL: $program is not built"; failed=$((failed + 1)); }
done
if ! command -v mpirun > /dev/null; then
    echo "FAIL: no mpirun (make test-launcher installs Open MPI)"
    failed=$((failed + 1))
fi

# --- the launcher unit under launchers ---------------------------------------------------------
begin "MPI: 3 ranks, rank 0's id by MPI_Bcast"
status 0 env "$MPI_LEAKS" mpirun --oversubscribe -np 3 "$drivers/driver_mpi"
one_id 3
for r in 0 1 2; do lines 1 "^rank $r of 3 local $r id .* from MPI_COMM_WORLD"; done
end

begin "MPI: a rank not ready stops all"
status 3 env "$MPI_LEAKS" mpirun --oversubscribe -np 2 -x DRIVER_NOT_READY=1 "$drivers/driver_mpi"
lines 2 "^rank [01] of 2 not ready: rank\(s\) 1 cannot run"
end

begin "mpirun without MPI linked: Open MPI's variables, the id over TCP"
status 0 mpirun --oversubscribe -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$(free_port)" "$drivers/driver"
one_id 2
for r in 0 1; do lines 1 "^rank $r of 2 local $r id .* from Open MPI's OMPI_COMM_WORLD_"; done
end

begin "shell: 3 ranks from RANK/WORLD_SIZE, the id over TCP"
shell_ranks 3 0 env MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$drivers/driver"
one_id 3
for r in 0 1 2; do lines 1 "^rank $r of 3 local $r id .* from RANK/WORLD_SIZE/LOCAL_RANK"; done
end

# --- the example without a GPU ----------------------------------------------------------------
begin "allreduce_launcher alone: SKIP"
status 77 "$examples/allreduce_launcher"
lines 1 "^allreduce_launcher: rank 0 of 1, local rank 0, from no launcher variables"
lines 1 "^allreduce_launcher: rank 0: SKIP \(no GPU/driver\)$"
lines 1 "^no usable CUDA driver"
end

begin "allreduce_launcher: 2 ranks meet over TCP, both SKIP"
shell_ranks 2 77 env MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$examples/allreduce_launcher"
lines 1 "^allreduce_launcher: rank 0: SKIP \(no GPU/driver\); rank\(s\) 0, 1 cannot run"
lines 1 "^allreduce_launcher: rank 1: SKIP \(no GPU/driver\); 2 rank\(s\) cannot run, the first is rank 0"
end

begin "allreduce_launcher: 2 ranks with NCCL_COMM_ID, both SKIP"
shell_ranks 2 77 env NCCL_COMM_ID="127.0.0.1:$(free_port)" "$examples/allreduce_launcher"
for r in 0 1; do
    lines 1 "^allreduce_launcher: rank $r of 2, local rank $r, from RANK/WORLD_SIZE/LOCAL_RANK"
    lines 1 "^allreduce_launcher: rank $r: SKIP \(no GPU/driver\)$"
done
end

begin "allreduce_launcher: a missing rank ends the meeting"
status 77 env RENDEZVOUS_TIMEOUT=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" RANK=0 WORLD_SIZE=2 \
    "$examples/allreduce_launcher"
lines 1 "^allreduce_launcher: rank 0: SKIP .*0 of the 1 other ranks came to port [0-9]+ within 1 s \(missing: rank 1\)"
end

begin "allreduce_launcher under mpirun: Open MPI's variables"
status 77 mpirun --oversubscribe -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$(free_port)" "$examples/allreduce_launcher"
for r in 0 1; do
    lines 1 "^allreduce_launcher: rank $r of 2, local rank $r, from Open MPI's OMPI_COMM_WORLD_"
    lines 1 "^allreduce_launcher: rank $r: SKIP \(no GPU/driver\); "
done
end

begin "allreduce_launcher_mpi under mpirun: SKIP, verdict from rank 0"
status 77 env "$MPI_LEAKS" mpirun --oversubscribe -np 2 "$examples/allreduce_launcher_mpi"
for r in 0 1; do
    lines 1 "^allreduce_launcher_mpi: rank $r of 2, local rank $r, from MPI_COMM_WORLD"
    lines 1 "^allreduce_launcher_mpi: rank $r: SKIP \(no GPU/driver\); rank\(s\) 0, 1 cannot run"
done
lines 1 "^allreduce_launcher_mpi: 2 rank\(s\): SKIP \(no GPU/driver\)$"
end

begin "allreduce_launcher: bad variables exit 1 with the reason"
status 1 env RANK=0 "$examples/allreduce_launcher"
lines 1 "^allreduce_launcher: RANK is set but WORLD_SIZE is not$"
status 1 env RANK=0 WORLD_SIZE=2 "$examples/allreduce_launcher"
lines 1 "^allreduce_launcher: 2 ranks need a meeting point: set NCCL_COMM_ID=host:port"
end

echo "launcher: $passed passed, $failed failed"
exit "$failed"
