#!/bin/sh
# Runs one dataflow count as P processes on this machine, connected over 127.0.0.1: for trying
# the multi-process path (and the failure and resume paths) before using several machines.
#
# usage: cluster/run-local.sh PROCESSES WORKERS [reversi count options...]
#   e.g. cluster/run-local.sh 3 2 --rows 4 --cols 5 --out /tmp/4x5-local
# environment: REVERSI    the binary (default: reversi on PATH, else this checkout's
#                         target/release/reversi)
#              BASE_PORT  process I listens on BASE_PORT+I (default 2101)
#              LOG_DIR    hostfile and one log per process (default: cluster/logs/local-<time>)
# Exit status: 0 when every process succeeded, otherwise the first failure's status (1 error,
# 2 bad input, 130 interrupted); the other processes are then stopped with SIGTERM.
set -eu

usage() {
    echo "usage: $0 PROCESSES WORKERS [reversi count options...]" >&2
    echo "  e.g. $0 3 2 --rows 4 --cols 5 --out /tmp/4x5-local" >&2
    exit 2
}

is_count() {
    case $1 in
    '' | *[!0-9]*) return 1 ;;
    *) [ "$1" -ge 1 ] ;;
    esac
}

[ $# -ge 2 ] || usage
is_count "$1" || usage
is_count "$2" || usage
procs=$1
workers=$2
shift 2

. "$(dirname "$0")/lib.sh"
reversi=$(find_reversi "$(cd "$(dirname "$0")/.." && pwd)") || exit 2
base_port=${BASE_PORT:-2101}
is_count "$base_port" || usage
log_dir=${LOG_DIR:-$(dirname "$0")/logs/local-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$log_dir"
hosts=$log_dir/hosts.txt

: >"$hosts"
i=0
while [ "$i" -lt "$procs" ]; do
    echo "127.0.0.1:$((base_port + i))" >>"$hosts"
    i=$((i + 1))
done

# Start every process in the background; $pids lists the ones still running, and
# $log_dir/pid-PID holds the process index of each.
pids=''
i=0
while [ "$i" -lt "$procs" ]; do
    "$reversi" count "$@" --workers "$workers" --processes "$procs" --process "$i" \
        --hostfile "$hosts" >"$log_dir/process-$i.log" 2>&1 &
    pids="$pids $!"
    echo "$i" >"$log_dir/pid-$!"
    echo "process $i: pid $!, log $log_dir/process-$i.log"
    i=$((i + 1))
done

stop_all() {
    # SIGTERM makes reversi save its checkpoint and stop, as Ctrl-C does.
    for p in $pids; do
        kill -TERM "$p" 2>/dev/null || true
    done
}

# Background jobs of a script ignore Ctrl-C, so forward it (and SIGTERM) to every process.
interrupted=0
trap 'interrupted=1; stop_all' INT TERM

# Wait until all have ended; on the first failure stop the rest.
status=0
while [ -n "$pids" ]; do
    still=''
    failed_now=0
    for p in $pids; do
        if kill -0 "$p" 2>/dev/null; then
            still="$still $p"
        else
            rc=0
            wait "$p" || rc=$?
            if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then
                status=$rc
                failed_now=1
                if [ "$interrupted" -eq 0 ]; then
                    # The first to fail has the cause; the others then fail for want of it.
                    i=$(cat "$log_dir/pid-$p")
                    why=$(grep '^Error' "$log_dir/process-$i.log" | tail -n 1)
                    echo "process $i (pid $p) failed first, with status $rc: ${why:-see its log}" >&2
                    echo "  its log: $log_dir/process-$i.log; stopping the others" >&2
                fi
            fi
        fi
    done
    pids=$still
    [ "$failed_now" -eq 0 ] || stop_all
    [ -z "$pids" ] || sleep 1
done

if [ "$interrupted" -eq 1 ] && [ "$status" -eq 0 ]; then
    status=130
fi
if [ "$status" -eq 0 ]; then
    echo "all $procs processes succeeded; the summary is in $log_dir/process-0.log"
else
    echo "failed with status $status; logs in $log_dir" >&2
fi
exit "$status"
