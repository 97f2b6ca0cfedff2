#!/bin/sh
# Version 2 of our PostgreSQL patch on the eviction cells sized like version 1's batch
# (../vm-eviction-20261130c/run.sh): dipietro-2026-eviction with scale=4, shared_buffers=2MB,
# duration=10, 8 runs per arm with 1 warm-up block, seed 7, the protocol's client count for 2 vCPUs
# (21), one boot per preemption mode (`preempt=full`, `preempt=lazy`) of the kit's 7.2.13,
# slice_extension off vs all. Two changes: the patched build is version 2 (patch e19f5bec8d7b), and
# the rseq-stats collector reads the kernel's grant counters around every run. The 6.1 reference
# cell is not repeated (no kernel support there: nothing of the patch runs).
# usage (from the repo root, SLICELAB_CACHE set as for the build): sh data/runs/vm-eviction-v2-20261202/run.sh
set -u
HERE=data/runs/vm-eviction-v2-20261202
CACHE=${SLICELAB_CACHE:-$HOME/.cache/slicelab}
K72=$CACHE/kernel/build/7.2.13-1/slice-ext+vm/arch/x86/boot/bzImage
P=$(ls -d "$CACHE"/postgres/install/18.6-patched-e19f5bec8d7b-*/bin | head -1)
INNER="node $PWD/bin/slicelab.js bench run dipietro-2026-eviction --param scale=4 --param shared_buffers=2MB --param duration=10 --runs 8 --warmup 1 --seed 7 --collect rseq-stats \
 --variant off=bin=$P,setting:slice_extension=off,env:GLIBC_TUNABLES=glibc.pthread.rseq=0 \
 --variant on=bin=$P,setting:slice_extension=all,env:GLIBC_TUNABLES=glibc.pthread.rseq=0 --out \$SLICELAB_VM_OUT/series; rc=\$?; \
 if [ -r /sys/kernel/debug/sched/preempt ]; then cat /sys/kernel/debug/sched/preempt > \$SLICELAB_VM_OUT/preempt.txt; \
 else echo 'absent: /sys/kernel/debug/sched/preempt not readable in the guest' > \$SLICELAB_VM_OUT/preempt.txt; fi; \
 cat /proc/cmdline > \$SLICELAB_VM_OUT/cmdline.txt; exit \$rc"
cell() {
  name=$1; kernel=$2; mode=$3
  mkdir -p "$HERE/$name"
  {
    echo "host start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
    node bin/slicelab.js vm run --kernel "$kernel" --accel tcg --timeout 3000 --mem 2048 --append "preempt=$mode" \
      --out "$PWD/$HERE/$name/vm" -- sh -c "$INNER" > "$HERE/$name/console-and-progress.log" 2>&1
    echo "rc $?"
    echo "host end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  } > "$HERE/$name/host-times.txt"
  node bin/slicelab.js compare "$HERE/$name/vm/series" --json > "$HERE/$name/comparison.json"
}
cell full-7.2.13 "$K72" full
cell lazy-7.2.13 "$K72" lazy
