/**
 * The sh of a PostgreSQL bundle (src/bundle/postgres.ts): run.sh's extra checks (the cluster user,
 * the bundled builds run through their loader, the user reaches the bundle and the results), the
 * workloads file (the protocol resolved per CPU count) and one plan script per plan, which runs the
 * series as the kit's runner does (src/bench/series.ts): per run and workload a freshly started
 * cluster of the run's build, the workload's settings then the variant's in slicelab.conf, the
 * database and setup once per cluster, the patch's settings and counters before and after, pgbench's
 * raw output, load before and after. Clusters live in RESULTS/clusters/BUILD, run as an unprivileged
 * user switched to with coreutils' `chroot --userspec` (root, POSIX sh and coreutils only), listen on
 * a Unix socket in the results directory and no TCP address, and are stopped on Ctrl-C.
 * The plan script follows the micro plans' interface: $SLICELAB_VM_OUT, $SLICELAB_BUDGET,
 * $SLICELAB_T0 and $SLICELAB_EST_RUN_S; a run with a status is skipped on resume; blocks that would
 * end after the budget are listed in not-run; one progress line per run with an ETA.
 */
import type { ResolvedWorkload } from "../bench/protocol.js";
import { SLICE_SETTINGS_SQL, SLICE_STATS_SQL } from "../bench/series.js";
import { shQuote } from "../vm/guest-init.js";
import type { PgPlanFile } from "./postgres.js";
import { confLines, PG_MAX_CPUS, pgbenchWords, setupKey } from "./postgres.js";
import { PG_USER } from "../postgres/user.js";

/** run.sh's checks for the PostgreSQL builds and the cluster user (after root and x86-64). */
export function pgChecksSh(builds: string[]): string {
  return `# PostgreSQL: an unprivileged user for the clusters (PostgreSQL refuses root); run.sh creates none
PGU=\${SLICELAB_PG_USER:-}
if [ -z "$PGU" ]; then for u in slicelab nobody; do if id -u "$u" >/dev/null 2>&1; then PGU=$u; break; fi; done; fi
[ -n "$PGU" ] && id -u "$PGU" >/dev/null 2>&1 || refuse "no user \${PGU:-slicelab or nobody} for the PostgreSQL clusters (PostgreSQL refuses root; run.sh creates no user): SLICELAB_PG_USER=NAME sh $0 ... with an existing unprivileged user"
PGUID=$(id -u "$PGU"); PGGID=$(id -g "$PGU")
[ "$PGUID" != 0 ] || refuse "SLICELAB_PG_USER=$PGU is root (uid 0), which PostgreSQL refuses: name an unprivileged user"
[ "$(chroot --userspec="$PGUID:$PGGID" / id -u 2>/dev/null)" = "$PGUID" ] || refuse "coreutils chroot --userspec cannot switch to user $PGU here ($(chroot --userspec="$PGUID:$PGGID" / id -u 2>&1 | head -1)): the clusters cannot run as an unprivileged user"
for b in ${builds.join(" ")}; do
  v=$("$HERE/pg/$b/bin/postgres" -V 2>&1) || refuse "pg/$b/bin/postgres does not run here through the bundled loader ($(printf '%s' "$v" | head -1))"
  chroot --userspec="$PGUID:$PGGID" / "$HERE/pg/$b/bin/postgres" -V >/dev/null 2>&1 || refuse "user $PGU cannot run $HERE/pg/$b/bin/postgres (a directory on the way is closed to others): extract the bundle where others may enter, e.g. under /var/tmp"
done
export SLICELAB_PG_USER="$PGU" SLICELAB_PG_UID="$PGUID" SLICELAB_PG_GID="$PGGID" SLICELAB_BUNDLE="$HERE"
`;
}

/** run.sh's check once the results directory exists: the cluster user must write its clusters there. */
export function pgOutCheckSh(): string {
  return `mkdir -p "$OUT/clusters" && chown "$PGUID:$PGGID" "$OUT/clusters" || refuse "cannot create $OUT/clusters for user $PGU"
{ chroot --userspec="$PGUID:$PGGID" / mkdir "$OUT/clusters/.probe-$$" 2>/dev/null && rmdir "$OUT/clusters/.probe-$$"; } || refuse "user $PGU cannot write $OUT/clusters (a directory on the way is closed to others): choose --out in a directory others may enter, e.g. under /var/tmp"
`;
}

/** plans/workloads.sh: \`wl_select CPUS\` defines the resolved workloads for that CPU count. */
export function pgWorkloadsScript(groups: { cpus: number[]; workloads: ResolvedWorkload[] }[]): string {
  const ranges = (cpus: number[]) => {
    const out: string[] = [];
    for (const n of cpus) out.push(String(n));
    return out.join("|");
  };
  const body = groups.map((g) => {
    const ws = g.workloads;
    const info = ws.map((w, i) => `      ${i + 1}) W_NAME=${shQuote(w.name)}; W_DB=${shQuote(w.database)}; W_HOGS=${w.hogs}; W_KEY=${setupKey(w)} ;;`).join("\n");
    const conf = ws.map((w, i) => `      ${i + 1}) cat <<'SLICELAB_EOF'\n${confLines(w.settings)}\nSLICELAB_EOF\n      ;;`).join("\n");
    const setup = ws.map((w, i) => `      ${i + 1}) ${w.setup.map((s, j) => (s.sql !== undefined ? `sql_step ${j + 1} ${shQuote(w.database)} ${shQuote(s.sql)}` : `tool_step ${j + 1} ${pgbenchWords(w, s.args ?? [])}`)).join(" && ") || "true"} ;;`).join("\n");
    const measure = ws.map((w, i) => `      ${i + 1}) "$B/pgbench" ${pgbenchWords(w, w.args)} ;;`).join("\n");
    return `  ${ranges(g.cpus)})
    WL_N=${ws.length}
    wl_info() { case "$1" in
${info}
    esac; }
    wl_conf() { case "$1" in
${conf}
    esac; }
    wl_setup() { case "$1" in
${setup}
    esac; }
    wl_measure() { case "$1" in
${measure}
    esac; }
    ;;`;
  }).join("\n");
  return `# The protocol's workloads resolved by the kit (resolveWorkloads) for each CPU count; made by slicelab bundle.
wl_select() {
  case "$1" in
${body}
  *) return 1 ;;
  esac
}
`;
}

/** One plan's script: every planned run in order (see the module comment). */
export function pgPlanScript(plan: PgPlanFile): string {
  const perBlock = plan.cells.length;
  const confs = plan.cells.map((c) => {
    const v = plan.variants.find((x) => x.name === c.name) as { settings: Record<string, string> };
    return `    ${shQuote(c.name)}) cat <<'SLICELAB_EOF'\n${confLines(v.settings)}\nSLICELAB_EOF\n    ;;`;
  }).join("\n");
  const runs = plan.runs.map((r) => `run ${r.id} ${r.block} ${r.mode} ${r.build} ${shQuote(r.variant)} ${Object.entries(r.env).map(([k, v]) => shQuote(`${k}=${v}`)).join(" ")}`).join("\n");
  return `set -u
O="$SLICELAB_VM_OUT"; H="$SLICELAB_BUNDLE"; D=/sys/kernel/debug; PORT=\${SLICELAB_PG_PORT:-55432}
PGUID=$SLICELAB_PG_UID; PGGID=$SLICELAB_PG_GID
note() { echo "slicelab-pg: $*"; echo "$*" >> "$O/notes.txt"; }
stampns() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
CPUS=$(nproc)
. "$H/plans/workloads.sh"
wl_select "$CPUS" || { note "this machine has $CPUS CPUs; the bundle's workloads are resolved for 1 to ${PG_MAX_CPUS} (make the bundle again)"; exit 3; }
echo "$CPUS" > "$O/cpus"
cp "$H/plans/workloads.json" "$O/workloads.json"
uname -r > "$O/uname-r"
mkdir -p "$O/runs" "$O/clusters" "$O/setup"
chown "$PGUID:$PGGID" "$O/clusters"
as_user() { chroot --userspec="$PGUID:$PGGID" / env -i PATH="$PATH" HOME="$C" LANG=C LC_ALL=C "$@"; }
cell_conf() { case "$1" in
${confs}
  esac; }
CUR_B=; CUR_C=; HOGS=
cl_stop() {
  [ -n "$CUR_C" ] || return 0
  as_user "$CUR_B/pg_ctl" -D "$CUR_C/data" -m fast -w -t 60 -s stop >/dev/null 2>&1 \\
    || as_user "$CUR_B/pg_ctl" -D "$CUR_C/data" -m immediate -w -t 30 -s stop >/dev/null 2>&1
  if [ -f "$CUR_C/data/postmaster.pid" ]; then p=$(head -1 "$CUR_C/data/postmaster.pid"); [ -n "$p" ] && kill -9 "$p" 2>/dev/null; fi
  CUR_C=
}
hogs_stop() { for p in $HOGS; do kill "$p" 2>/dev/null; done; HOGS=; }
trap 'hogs_stop; cl_stop; exit 130' INT TERM
# start BUILD CELL ENV...: a fresh start of the build's cluster with the workload's then the cell's settings
cl_start() {
  bld=$1; cell=$2; shift 2
  B="$H/pg/$bld/bin"; C="$O/clusters/$bld"; SOCK="$C/sock"
  if [ \${#SOCK} -gt 90 ]; then SOCK=$(cat "$C/sock-path" 2>/dev/null); [ -d "$SOCK" ] || { SOCK=$(mktemp -d /tmp/slicelab-pg.XXXXXX) || return 1; echo "$SOCK" > "$C/sock-path"; }; fi
  mkdir -p "$C" "$SOCK"; chown "$PGUID:$PGGID" "$C" "$SOCK"; chmod 700 "$SOCK"
  if [ ! -f "$C/data/PG_VERSION" ]; then
    rm -rf "$C/data"
    as_user "$B/initdb" -D "$C/data" -U ${PG_USER} --auth=trust -E UTF8 --locale=C --no-sync > "$C/initdb.log" 2>&1 || { note "initdb of the $bld cluster failed (clusters/$bld/initdb.log)"; return 1; }
    printf "\\n# Added by slicelab: per-start settings of the kit.\\ninclude_if_exists = 'slicelab.conf'\\n" >> "$C/data/postgresql.conf"
  fi
  if [ -f "$C/data/postmaster.pid" ]; then
    as_user "$B/pg_ctl" -D "$C/data" -m immediate -w -t 30 -s stop >/dev/null 2>&1 && note "stopped the $bld cluster left running by an earlier session"
  fi
  { echo "# Written by the bundle's plan script before every start of this cluster."
    echo "listen_addresses = ''"; echo "port = $PORT"; echo "unix_socket_directories = '$SOCK'"
    wl_conf "$W"; cell_conf "$cell"; } > "$C/data/slicelab.conf"
  chown "$PGUID:$PGGID" "$C/data/slicelab.conf"
  echo "----- slicelab bundle: starting cluster $bld for $cell at $(stampns) -----" >> "$C/postgres.log"; chown "$PGUID:$PGGID" "$C/postgres.log"
  CUR_B=$B; CUR_C=$C
  as_user env "$@" "$B/pg_ctl" -D "$C/data" -l "$C/postgres.log" -w -t 120 -s start > "$C/pg_ctl.out" 2>&1 || { note "the $bld cluster did not start (clusters/$bld/postgres.log)"; cl_stop; return 1; }
}
q() { "$B/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U ${PG_USER} -d "$1" -c "$2"; }
sql_step() { q "$2" "$3" >> "$O/setup/$bld-$W_NAME-$1.out" 2>&1; }
tool_step() { n=$1; shift; "$B/pgbench" "$@" > "$O/setup/$bld-$W_NAME-$n.out" 2>&1; }
# the database and the workload's setup, once per cluster (clusters/BUILD/setup-KEY)
ensure_setup() {
  have=$(q postgres "SELECT count(*) FROM pg_database WHERE datname = '$W_DB'") || return 1
  [ "$have" = 1 ] && [ -f "$C/setup-$W_KEY" ] && return 0
  [ "$have" = 1 ] || q postgres "CREATE DATABASE \\"$W_DB\\"" >/dev/null || return 1
  note "setup $W_NAME in the $bld cluster ($W_DB)"
  wl_setup "$W" || { note "setup of $W_NAME in the $bld cluster failed (setup/)"; return 1; }
  stampns > "$C/setup-$W_KEY"
}
slice_state() {
  q "$W_DB" ${shQuote(SLICE_SETTINGS_SQL)} > "$R/$W_NAME.slice-$1.txt" 2>&1 || return 0
  if grep -q '^slice_extension=' "$R/$W_NAME.slice-$1.txt" && ! grep -q '^slice_extension_stats=' "$R/$W_NAME.slice-$1.txt"; then
    q "$W_DB" ${shQuote(SLICE_STATS_SQL)} > "$R/$W_NAME.slice-stats-$1.json" 2>&1
  fi
}
SL_N=${plan.runs.length}; SL_PER_BLOCK=${perBlock}; SL_DONE=0; SL_RAN=0; SL_BLOCK=0; SL_STOP=0; SL_RUN_S=0
SL_T0=\${SLICELAB_T0:-$(date +%s)}
run() {
  id=$1; blk=$2; mode=$3; bld=$4; cell=$5; shift 5
  R="$O/runs/$id"
  if [ -f "$R/status" ]; then SL_DONE=$((SL_DONE + 1)); echo "slicelab-pg: run $id done before (resumed)"; return; fi
  if [ "$blk" != "$SL_BLOCK" ]; then
    SL_BLOCK=$blk
    if [ -n "\${SLICELAB_BUDGET:-}" ] && [ $SL_STOP = 0 ]; then
      el=$(( $(date +%s) - SL_T0 )); per=\${SLICELAB_EST_RUN_S:-60}
      [ $SL_RAN -gt 0 ] && per=$(( (SL_RUN_S + SL_RAN - 1) / SL_RAN ))
      if [ $(( el + per * SL_PER_BLOCK )) -gt "$SLICELAB_BUDGET" ]; then SL_STOP=1; note "budget: block $blk and later not started (\${el} s used of $SLICELAB_BUDGET, ~\${per} s per run)"; fi
    fi
  fi
  if [ $SL_STOP = 1 ]; then echo "$id" >> "$O/not-run"; return; fi
  rm -rf "$R"; mkdir -p "$R"; t_run=$(date +%s)
  stampns > "$R/started"
  if [ "$mode" != current ]; then
    if ! echo "$mode" > $D/sched/preempt 2>/dev/null || [ "$(sed -n 's/.*(\\([a-z]*\\)).*/\\1/p' $D/sched/preempt)" != "$mode" ]; then
      note "run $id: sched/preempt $mode refused"; echo refused > "$R/status"; return
    fi
  fi
  cat $D/sched/preempt > "$R/preempt" 2>/dev/null || echo "(current) not readable in debugfs" > "$R/preempt"
  cat $D/rseq/stats > "$R/rseq-stats-before.txt" 2>/dev/null
  grep -E '^cpu[0-9 ]' /proc/stat > "$R/stat-before" 2>/dev/null
  st=0; W=1
  while [ $W -le $WL_N ]; do
    wl_info $W
    cl_start "$bld" "$cell" "$@" || { st=4; break; }
    ensure_setup || { st=5; cl_stop; break; }
    slice_state before
    cat /proc/loadavg > "$R/$W_NAME.load-before"
    i=0; while [ $i -lt "$W_HOGS" ]; do ( while :; do :; done ) & HOGS="$HOGS $!"; i=$((i + 1)); done
    stampns > "$R/$W_NAME.started"
    wl_measure $W > "$R/$W_NAME.out" 2>&1
    echo $? > "$R/$W_NAME.rc"
    stampns > "$R/$W_NAME.ended"
    hogs_stop
    cat /proc/loadavg > "$R/$W_NAME.load-after"
    slice_state after
    cl_stop
    [ "$(cat "$R/$W_NAME.rc")" = 0 ] || { note "run $id: pgbench of $W_NAME exited with $(cat "$R/$W_NAME.rc") (runs/$id/$W_NAME.out)"; st=6; break; }
    W=$((W + 1))
  done
  cat $D/rseq/stats > "$R/rseq-stats-after.txt" 2>/dev/null
  grep -E '^cpu[0-9 ]' /proc/stat > "$R/stat-after" 2>/dev/null
  stampns > "$R/ended"
  echo $st > "$R/status"
  SL_RAN=$((SL_RAN + 1)); SL_DONE=$((SL_DONE + 1)); SL_RUN_S=$(( SL_RUN_S + $(date +%s) - t_run ))
  per=$(( (SL_RUN_S + SL_RAN - 1) / SL_RAN )); el=$(( $(date +%s) - SL_T0 ))
  left=$(( SL_N - SL_DONE )); eta=$(( left * per ))
  [ -n "\${SLICELAB_BUDGET:-}" ] && [ $(( el + eta )) -gt "$SLICELAB_BUDGET" ] && eta="$(( SLICELAB_BUDGET - el )) (budget)"
  tps=$(sed -n 's/^tps = \\([0-9.]*\\) .*/\\1/p' "$R"/*.out 2>/dev/null | tail -1)
  echo "slicelab-pg: run $id done ($SL_DONE/$SL_N, block $blk, $cell, tps \${tps:-none}, status $st, \${el} s, ETA \${eta} s)"
}
${runs}
if [ $SL_STOP = 0 ]; then
  rm -rf "$O"/clusters/*/data
  note "every planned run has a status: the clusters' data directories were removed (their logs are kept)"
fi
exit 0
`;
}
