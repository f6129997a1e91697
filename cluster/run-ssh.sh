#!/bin/bash
# Starts one dataflow count over ssh: process I on the host of the hostfile's I-th entry, all
# with the same options. Copies the hostfile to every host, streams each process's output into
# a local log, and when one process fails stops the others (SIGTERM: they save a checkpoint).
#
# usage: cluster/run-ssh.sh HOSTFILE [reversi count options...]
#   e.g. cluster/run-ssh.sh hosts.txt --rows 5 --cols 6 --workers 32 --memory 230000 \
#            --out /scratch/reversi/5x6
# environment: REMOTE_DIR  working directory on every host (default: this directory's path)
#              REVERSI     the binary on the hosts (default: reversi if on PATH here, else
#                          this checkout's target/release/reversi, by the same path there)
#              SSH         the ssh client (default: ssh)
#              LOG_DIR     local logs (default: cluster/logs/ssh-<time>)
# HOSTFILE: one host:port per process, in process order; blank lines and # lines are ignored.
# ssh must log in without a prompt (keys or an agent; ~/.ssh/config for users and ports).
# Exit status: 0 when every process succeeded, otherwise the first failure's status (1 error,
# 2 bad input, 130 interrupted, 255 ssh could not connect).
set -eu

usage() {
    echo "usage: $0 HOSTFILE [reversi count options...]" >&2
    echo "  e.g. $0 hosts.txt --rows 5 --cols 6 --workers 32 --out /scratch/reversi/5x6" >&2
    exit 2
}

# Quotes one word for a POSIX shell on the remote side.
shquote() {
    printf "'%s'" "${1//\'/\'\\\'\'}"
}

[ $# -ge 1 ] || usage
case $1 in -h | --help) usage ;; esac
hostfile=$1
shift
[ -f "$hostfile" ] || {
    echo "no hostfile $hostfile" >&2
    usage
}

remote_dir=${REMOTE_DIR:-$PWD}
. "$(dirname "$0")/lib.sh"
reversi=$(find_reversi "$(cd "$(dirname "$0")/.." && pwd)") || exit 2
ssh=${SSH:-ssh}
log_dir=${LOG_DIR:-$(dirname "$0")/logs/ssh-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$log_dir"

hosts=()
clean=''
while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    case $line in '' | '#'*) continue ;; esac
    addr=${line%:*} # host:port or [v6]:port
    addr=${addr#[}
    addr=${addr%]}
    hosts+=("$addr")
    clean+="$line"$'\n'
done <"$hostfile"
procs=${#hosts[@]}
[ "$procs" -ge 1 ] || {
    echo "$hostfile lists no host:port line" >&2
    exit 2
}
# Every process gets this copy: the host:port lines only, trimmed.
printf '%s' "$clean" >"$log_dir/hosts.txt"

rdir=$(shquote "$remote_dir")
remote_hosts="$rdir/cluster-hosts.txt"
args=''
for a in "$@"; do
    args+=" $(shquote "$a")"
done

# The same hostfile on every host (a host named twice gets it twice, which is harmless).
for i in "${!hosts[@]}"; do
    "$ssh" -o BatchMode=yes "${hosts[$i]}" "mkdir -p $rdir && cat > $remote_hosts" <"$log_dir/hosts.txt" || {
        echo "could not copy the hostfile to ${hosts[$i]}" >&2
        exit 255
    }
done

# Process I writes its pid (the shell's, which exec hands to reversi) so that it can be stopped.
pids=()
for i in "${!hosts[@]}"; do
    cmd="cd $rdir && echo \$\$ > .reversi-process-$i.pid && exec $(shquote "$reversi") count$args"
    cmd+=" --processes $procs --process $i --hostfile $remote_hosts"
    "$ssh" -n -o BatchMode=yes "${hosts[$i]}" "$cmd" >"$log_dir/process-$i.log" 2>&1 &
    pids[i]=$!
    echo "process $i on ${hosts[$i]}: log $log_dir/process-$i.log"
done

stopped=0
stop_all() {
    [ "$stopped" -eq 0 ] || return 0
    stopped=1
    for i in "${!pids[@]}"; do
        "$ssh" -n -o BatchMode=yes -o ConnectTimeout=10 "${hosts[$i]}" \
            "cd $rdir && kill -TERM \$(cat .reversi-process-$i.pid) 2>/dev/null" || true &
    done
    wait_stoppers=1
}

interrupted=0
wait_stoppers=0
trap 'interrupted=1; stop_all' INT TERM

status=0
while [ ${#pids[@]} -gt 0 ]; do
    for i in "${!pids[@]}"; do
        p=${pids[$i]}
        kill -0 "$p" 2>/dev/null && continue
        rc=0
        wait "$p" || rc=$?
        unset 'pids[i]'
        echo "process $i on ${hosts[$i]} exited with status $rc"
        if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then
            status=$rc
            [ "$interrupted" -eq 1 ] || echo "stopping the other processes" >&2
            stop_all
        fi
    done
    [ ${#pids[@]} -eq 0 ] || sleep 1
done
[ "$wait_stoppers" -eq 0 ] || wait || true

if [ "$interrupted" -eq 1 ] && [ "$status" -eq 0 ]; then
    status=130
fi
if [ "$status" -eq 0 ]; then
    echo "all $procs processes succeeded; the summary is in $log_dir/process-0.log"
else
    echo "failed with status $status; logs in $log_dir" >&2
fi
exit "$status"
