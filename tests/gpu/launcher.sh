#!/bin/sh
# tests/gpu/launcher.sh BUILD_DIR - allreduce_launcher's ranks on this machine's GPUs, started each
# way a launcher starts them; every rank checks C against the CPU and times the all-reduce:
#   env       RANK/WORLD_SIZE/LOCAL_RANK from this shell, rank 0 hands the NCCL id over TCP
#             (MASTER_ADDR=127.0.0.1)
#   comm-id   the same variables, NCCL_COMM_ID=127.0.0.1:PORT (NCCL's own bootstrap)
#   mpirun    mpirun -np N allreduce_launcher (no MPI linked: Open MPI's variables, id over TCP)
#   mpi       mpirun -np N allreduce_launcher_mpi (ranks from MPI, id by MPI_Bcast)
# each with NCCL's default transports and on the network transport (NCCL_P2P_DISABLE=1
# NCCL_SHM_DISABLE=1: NCCL's socket transport, as between hosts). NCCL_NVLS_ENABLE=0 always.
# NCCL_DEBUG=INFO: the transport NCCL chose ("via ..." lines) is printed with each run's times.
# The mpirun ways need mpirun and libmpi.so.40 (searched for when the loader does not find it);
# without them they are reported as not run, not as failed.
#
# Built here with `make gpu-build` (it builds allreduce_launcher_mpi too, installing Open MPI);
# on the GPU machine: sh tests/gpu/launcher.sh build  (RANKS=N: N ranks, default the GPU count).
# Exit status: the number of failed runs.
set -u
build=$(cd "${1:-build}" && pwd)
examples=$build/examples
out=${OUT:-$(mktemp -d)}/launcher
mkdir -p "$out"
failed=0
not_run=""
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
ranks=${RANKS:-$gpus}
if [ "$ranks" -lt 1 ]; then
    echo "launcher: no GPU"
    exit 77
fi
[ "$ranks" -ge 2 ] || echo "launcher: $ranks GPU(s): one rank, no transport between GPUs to see"

unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT NCCL_COMM_ID NCCL_P2P_DISABLE NCCL_SHM_DISABLE
export NCCL_NVLS_ENABLE=0 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET RENDEZVOUS_TIMEOUT=120
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" # set, so that mpirun -x can pass it on

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# mpirun, and the loader's path to libmpi.so.40 when allreduce_launcher_mpi does not find it.
mpirun=$(command -v mpirun)
for candidate in /opt/hpcx/ompi/bin/mpirun /usr/mpi/gcc/openmpi-*/bin/mpirun /usr/local/mpi/bin/mpirun; do
    [ -z "$mpirun" ] && [ -x "$candidate" ] && mpirun=$candidate
done
mpi_build=$examples/allreduce_launcher_mpi
if [ -x "$mpi_build" ] && ldd "$mpi_build" | grep -q 'libmpi.so.40 => not found'; then
    libmpi=$(find / -xdev -name 'libmpi.so.40' 2> /dev/null | head -n 1)
    if [ -n "$libmpi" ]; then
        LD_LIBRARY_PATH="$(dirname "$libmpi")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export LD_LIBRARY_PATH
    fi
fi
echo "launcher: $ranks rank(s), $gpus GPU(s); mpirun: ${mpirun:-none}; $(ldd "$mpi_build" 2> /dev/null |
      grep libmpi || echo "no $mpi_build")"

# shell_ranks COMMAND...: RANKS ranks started from this shell; the log is $log; 0 if all exit 0.
shell_ranks() {
    r=0
    pids=""
    while [ "$r" -lt "$ranks" ]; do
        RANK=$r WORLD_SIZE=$ranks LOCAL_RANK=$r timeout 300 "$@" > "$log.$r" 2>&1 &
        pids="$pids $!"
        r=$((r + 1))
    done
    code=0
    for pid in $pids; do wait "$pid" || code=1; done
    cat "$log".[0-9]* > "$log"
    return $code
}

# run WAY TRANSPORT: one run; checks that every rank passed and, on the network, that NCCL used it.
run() {
    way=$1
    transport=$2
    log=$out/$way-$transport.log
    if [ "$transport" = network ]; then
        set -- env NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
        mpi_env="-x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1"
    else
        set -- env
        mpi_env=""
    fi
    echo "=== $way, $transport transport"
    case $way in
    env) shell_ranks "$@" MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$examples/allreduce_launcher" ;;
    comm-id) shell_ranks "$@" NCCL_COMM_ID="127.0.0.1:$(free_port)" "$examples/allreduce_launcher" ;;
    mpirun | mpi)
        program=$examples/allreduce_launcher
        [ "$way" = mpi ] && program=$mpi_build
        if [ -z "$mpirun" ] || [ ! -x "$program" ]; then
            echo "not run: no mpirun or no $program"
            not_run="$not_run $way-$transport"
            return
        fi
        # shellcheck disable=SC2086 # mpi_env: -x NAME=VALUE words
        timeout 300 "$mpirun" --oversubscribe -np "$ranks" -x NCCL_NVLS_ENABLE -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS \
            -x LD_LIBRARY_PATH -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$(free_port)" $mpi_env "$program" > "$log" 2>&1
        ;;
    esac
    code=$?
    passes=$(grep -c -E "^  rank [0-9]+ of $ranks \(GPU [0-9]+\).*: PASS$" "$log")
    grep -E "^  rank |^allreduce_launcher" "$log"
    echo "NCCL's transport: $(grep -o -E 'via [A-Za-z0-9/_]+' "$log" | sort | uniq -c | tr -s ' \n' ' ')"
    grep -E "NCCL INFO (NET/Socket : Using|Using network)" "$log" | sed 's/.*NCCL INFO/  NCCL INFO/' | sort -u
    verdict=ok
    [ "$code" = 0 ] && [ "$passes" = "$ranks" ] || verdict="FAILED (exit $code, $passes of $ranks ranks passed)"
    if [ "$transport" = network ] && [ "$ranks" -ge 2 ]; then
        grep -q -E 'via NET/' "$log" || verdict="FAILED (no network transport: see $log)"
        ! grep -q -E 'via (P2P|SHM)' "$log" || verdict="FAILED (P2P or SHM despite their variables)"
    fi
    echo "=== $verdict: $way, $transport"
    [ "$verdict" = ok ] || failed=$((failed + 1))
}

for way in env comm-id mpirun mpi; do
    for transport in default network; do
        run "$way" "$transport"
    done
done
echo "=== launcher: $failed run(s) failed${not_run:+; not run:$not_run}; logs in $out"
exit "$failed"
