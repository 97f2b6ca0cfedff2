#!/bin/sh
# The device check of issue 25 item 5, as one prepared command: the lent machine (the session's
# `device` tool, when one is lent) runs two bundles natively — the micro-benchmark pinned to 1 CPU
# (2 workers + 2 hogs, as the kit's 1-vCPU guest) and to 4 CPUs (4 + 4) — within budgets B1 and B4
# seconds, falls back to --no-trace when tracefs is refused, and leaves the results as one tarball
# in $OUT for `slicelab import`. Rehearsed here with small budgets before it is sent:
#   slicelab bundle mechanism-micro --blocks 40 --out bundles/dev1.tar.gz
#   slicelab bundle mechanism-micro --blocks 40 --pin-cpus 4 --threads 4 --hogs 4 --out bundles/dev4.tar.gz
#   OUT=/tmp/reh B1=20 B4=12 sh scripts/device-run.sh
# and sent with carry ["bundles"] as: B1=240 B4=100 sh scripts/device-run.sh
set -u
R=$(pwd); W=/tmp/slw; rm -rf $W; mkdir -p $W/b1 $W/b4 "$OUT"; cd $W || exit 1
tar -C b1 -xzf "$R/bundles/dev1.tar.gz" && tar -C b4 -xzf "$R/bundles/dev4.tar.gz" || exit 1
{ uname -a; cat /proc/version; nproc; ls /sys/kernel/tracing 2>&1 | head -3; ls /sys/kernel/debug 2>&1 | head -3; cat /sys/kernel/debug/sched/preempt 2>&1; id; } > "$OUT/env.txt" 2>&1
go() {
  sh $W/$1/*/run.sh --budget "$3" --out $W/$2 > $W/$2.log 2>&1
  [ $? = 3 ] && sh $W/$1/*/run.sh --no-trace --budget "$3" --out $W/$2 > $W/$2.log2 2>&1
  tail -4 $W/$2.log
}
go b1 r1 "${B1:-230}"
go b4 r4 "${B4:-90}"
tar -C $W -czf "$OUT/results.tar.gz" r1 r4 $(cd $W && ls | grep '\.log')
ls -la "$OUT"
