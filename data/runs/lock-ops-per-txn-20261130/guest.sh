#!/bin/sh
# slicelab: how many lock-hook calls (slice-extension requests) one pgbench -S transaction makes in
# the patched PostgreSQL 18.6, counted by the patch itself (SHOW slice_extension_stats) on a kernel
# that grants extensions. Run as the VM's command:
#   slicelab vm run --append no_timer_check --timeout 1800 --out DIR -- sh data/runs/lock-ops-per-txn-20261130/guest.sh
# Two series of the rostedt-2023 workload, shrunk (scale 10 as in the host's cost benchmarks, 2 clients,
# 1 thread), with slice_extension=all, one of 10 s runs and one of 30 s runs. Every run restarts the
# cluster and opens the same connections, so the difference of requests between a 30 s and a 10 s run,
# divided by the difference of transactions, is the count per transaction without the fixed cost of
# connecting (see analyse.mjs).
set -u
OUT="${SLICELAB_VM_OUT:?run inside slicelab vm run}"
KIT=/work/main
PG_BIN="${PG_BIN:-$(ls -d $KIT/.work/postgres/install/18.6-patched-*/bin | head -1)}"
V="on=bin=$PG_BIN,env:GLIBC_TUNABLES=glibc.pthread.rseq=0,setting:authentication_timeout=600,setting:slice_extension=all"
uname -a > "$OUT/kernel.txt"
cat /proc/cmdline >> "$OUT/kernel.txt"
rc=0
for d in 10 30; do
  node $KIT/bin/slicelab.js bench run rostedt-2023 --param scale=10 --param clients=2 --param threads=1 \
    --param duration=$d --runs 3 --warmup 0 --seed 5 --variant "$V" --out "$OUT/d$d" || rc=$?
done
exit $rc
