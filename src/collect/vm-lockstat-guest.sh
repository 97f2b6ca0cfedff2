#!/bin/sh
# slicelab: the guest side of a collected VM series (data/runs/vm-lockstat-*): run as the VM's
# command by `slicelab vm run [--kernel BZIMAGE] -- sh src/collect/vm-lockstat-guest.sh`.
# Writes into $SLICELAB_VM_OUT:
#   kernel.txt                 uname, command line, lock_stat/rseq availability
#   pipe-before.txt, pipe-after.txt
#                              `perf bench sched pipe` three times before and after the series: a
#                              kernel-bound loop (wakeups, run-queue locks, pipe mutex) whose time per
#                              round trip shows what CONFIG_LOCK_STAT costs the kernel (compare boots)
#   series/                    `slicelab bench run smoke` with the patched PostgreSQL 18.6, variants
#                              off (slice_extension=off) and on (all), collectors
#                              lockstat,rseq-stats,ctxsw,pg-waits (skipped ones say why)
#   lock_stat-micro.txt, rseq-stats-micro.{before,after}.txt, micro.json
#                              when /proc/lock_stat exists: statistics cleared, the micro-benchmark
#                              (4 threads, 4 CPU hogs, extension on, 5 s), then /proc/lock_stat read;
#                              after the series, or right after pipe-before.txt with MICRO_FIRST=1 (so
#                              that a boot cut short by --timeout still holds the capture)
# Environment (optional): PG_BIN (patched PostgreSQL bin directory), RUNS (default 3), WARMUP (1), SEED (11),
# CLIENTS (pgbench clients of every pgbench workload; default: the protocol's),
# DURATION (seconds per workload, default 10: the protocol's 2 s let no TCG client connect on a loaded
# host), PIPE_LOOPS (round trips per perf bench run, default 5000; 0 skips it), MICRO_FIRST (1: the
# lock_stat capture before the series instead of after it; default 0).
set -u
OUT="${SLICELAB_VM_OUT:?run inside slicelab vm run}"
KIT=/work/main
S="node $KIT/bin/slicelab.js"
PG_BIN="${PG_BIN:-$(ls -d $KIT/.work/postgres/install/18.6-patched-*/bin | head -1)}"
RUNS="${RUNS:-3}"
SEED="${SEED:-11}"
WARMUP="${WARMUP:-1}"
CLIENTS="${CLIENTS:-}"
DURATION="${DURATION:-10}"
PIPE_LOOPS="${PIPE_LOOPS:-5000}"
MICRO_FIRST="${MICRO_FIRST:-0}"
{
  echo "uname: $(uname -a)"
  echo "cmdline: $(cat /proc/cmdline)"
  if [ -e /proc/lock_stat ]; then echo "lock_stat: present, kernel.lock_stat=$(cat /proc/sys/kernel/lock_stat)"; else echo "lock_stat: absent"; fi
  if [ -e /sys/kernel/debug/rseq/stats ]; then echo "rseq/stats: present"; else echo "rseq/stats: absent"; fi
  echo "pg_bin: $PG_BIN"
} > "$OUT/kernel.txt"
pipe() { [ "$PIPE_LOOPS" -gt 0 ] || return 0; for i in 1 2 3; do perf bench sched pipe -l "$PIPE_LOOPS" 2>&1; done; }
# one /proc/lock_stat capture around the micro-benchmark (LOCK_STAT kernels only)
micro() {
  [ -w /proc/lock_stat ] || return 0
  cat /sys/kernel/debug/rseq/stats > "$OUT/rseq-stats-micro.before.txt" 2>/dev/null
  echo 0 > /proc/lock_stat
  echo 1 > /proc/sys/kernel/lock_stat
  $S micro run --threads 4 --hogs 4 --cs-ns 2000 --duration 5 --extension on --json > "$OUT/micro.json" 2> "$OUT/micro.err"
  cat /proc/lock_stat > "$OUT/lock_stat-micro.txt"
  cat /sys/kernel/debug/rseq/stats > "$OUT/rseq-stats-micro.after.txt" 2>/dev/null
}
pipe > "$OUT/pipe-before.txt"
[ "$MICRO_FIRST" = 1 ] && micro
# line counts of the server logs already there (the host's), so that only this boot's lines are kept
for l in $(find $KIT/.work/clusters -maxdepth 2 -name postgres.log); do echo "$(wc -l < "$l") $l"; done > "$OUT/.log-lines"
# authentication_timeout: a TCG guest on a loaded host can take longer than the default 60 s to
# authenticate a connection (seen 2026-11-30: "server closed the connection unexpectedly").
V="bin=$PG_BIN,env:GLIBC_TUNABLES=glibc.pthread.rseq=0,setting:authentication_timeout=600"
$S bench run smoke --runs "$RUNS" --warmup "$WARMUP" --seed "$SEED" --param "duration=$DURATION" --param "time=$DURATION" \
  ${CLIENTS:+--param "clients=$CLIENTS"} \
  --variant "off=$V,setting:slice_extension=off" --variant "on=$V,setting:slice_extension=all" \
  --collect lockstat,rseq-stats,ctxsw,pg-waits --out "$OUT/series"
rc=$?
# the clusters live in the guest's tmpfs overlay: keep what this boot appended to their server logs
mkdir -p "$OUT/server-logs"
for l in $(find $KIT/.work/clusters -maxdepth 2 -name postgres.log -newer "$OUT/kernel.txt"); do
  n=$(grep -F "$l" "$OUT/.log-lines" 2>/dev/null | cut -d' ' -f1)
  tail -n +"$(( ${n:-0} + 1 ))" "$l" > "$OUT/server-logs/$(basename "$(dirname "$l")").log"
done
rm -f "$OUT/.log-lines"
pipe > "$OUT/pipe-after.txt"
[ "$MICRO_FIRST" = 1 ] || micro
exit $rc
