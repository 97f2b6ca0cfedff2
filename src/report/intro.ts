/**
 * The headlines of notebook 00 (one row per post: what it measured and its headline number),
 * computed from data/published/ and the claims ledger. The notebook records `values` (names of
 * the form <claim id>.<key> are the ledger's and are checked against it by
 * test/notebook-values.test.ts) and renders `introTable`.
 */
import { findClaim, claimValueName, type ClaimEntry } from "../claims/index.js";
import { rostedtTps, type Lahr2001, type Lu2023, type Rostedt2023, type Sangappa2024 } from "../published/index.js";
import { summary, type Summary } from "../stats/index.js";
import { DIPIETRO_2026 } from "./history.js";
import { UserError } from "../util/errors.js";

export interface IntroInputs {
  rostedt: Rostedt2023;
  lahr: Lahr2001;
  lu: Lu2023;
  sangappa: Sangappa2024;
  ledger: readonly ClaimEntry[];
}

export interface IntroHeadlines {
  /** Every number the notebook records, in the order it records them. */
  values: { name: string; value: number }[];
  rostedt: { without: Summary; withPatch: Summary; diffPct: number; sdRatio: number };
  lahr: {
    runqueue: { utilPct: number; conPct: number };
    spraulSpinningS: number;
    spraulCpuS: number;
    lostS: number;
    runLengthS: number;
    lostWallPct: number;
    lostCpuPct: number;
    cpuTimeS: number;
  };
  lu: { slowBefore: number; slowAfter: number };
  sangappa: { test: string; gainPct: number }[];
  dipietroRatio: number;
}

const SANGAPPA_CLAIM: Record<string, string> = { "Lock table test": "lock-table-improvement", Swingbench: "swingbench-improvement" };
const SLOWPATH = "native_queued_spin_lock_slowpath";

/** The headline numbers of the five posts; throws a UserError naming the file when a row it needs is missing. */
export function introHeadlines(d: IntroInputs): IntroHeadlines {
  const values: { name: string; value: number }[] = [];
  const rec = (name: string, value: number): number => {
    values.push({ name, value });
    return value;
  };
  const without = summary(rostedtTps(d.rostedt, "without-patch"));
  const withPatch = summary(rostedtTps(d.rostedt, "with-patch"));
  rec("rostedt-2023.average-unpatched.recomputed", without.mean);
  rec("rostedt-2023.std-dev-unpatched.sample-sd", without.sd);
  rec("rostedt-2023.average-patched.recomputed", withPatch.mean);
  rec("rostedt-2023.std-dev-patched.sample-sd", withPatch.sd);
  const diffPct = rec("intro.rostedt-2023.mean-difference-pct", (withPatch.mean / without.mean - 1) * 100);
  const sdRatio = rec("intro.rostedt-2023.sd-ratio", withPatch.sd / without.sd);

  const spraul = (id: string): number => {
    const fig = d.lahr.spraul.find((x) => x.id === id);
    if (!fig) throw new UserError(`lahr-2001/spraul.json: no figure "${id}"`);
    return fig.value as number;
  };
  const L = "lahr-2001/spraul-lost-time";
  const lost = findClaim(d.ledger, L).values;
  const need = (k: string): number => {
    const v = lost[k];
    if (typeof v !== "number") throw new UserError(`claims ledger ${L}: no value "${k}"`);
    return v;
  };
  const lostS = rec(claimValueName(L, "lostPerAcquisitionS"), need("lostPerAcquisitionS"));
  const lostWallPct = rec(claimValueName(L, "lostShareOfWallPct"), need("lostShareOfWallPct"));
  const rq2 = d.lahr.rows.find((r) => r.section === "2way" && r.kind === "lock" && r.lock === "runqueue_lock");
  if (!rq2) throw new UserError("lahr-2001/lockmeter.json: no 2-way runqueue_lock row");

  const share = (kernel: "before" | "after"): number => {
    const row = d.lu.profile.find((r) => r.kernel === kernel && r.symbol === SLOWPATH);
    if (!row || row.childrenPct === null) throw new UserError(`lu-2023/profile.json: no ${kernel} row for ${SLOWPATH}`);
    return row.childrenPct;
  };
  const slowBefore = share("before");
  const slowAfter = rec("intro.lu-2023.spin-slowpath-after-pct", share("after"));

  const sangappa = d.sangappa.results.map((r) => {
    const claim = SANGAPPA_CLAIM[r.test];
    if (!claim) throw new UserError(`sangappa-2024/results.json: unknown test "${r.test}"`);
    return { test: r.test, gainPct: rec(`sangappa-2024.${claim}.recomputed-pct`, (r.withFeature / r.without - 1) * 100) };
  });
  const dipietroRatio = rec("intro.dipietro-2026.throughput-ratio", DIPIETRO_2026.tpsAfter / DIPIETRO_2026.tpsBefore);
  return {
    values,
    rostedt: { without, withPatch, diffPct, sdRatio },
    lahr: {
      runqueue: { utilPct: rq2.utilPct, conPct: rq2.conPct },
      spraulSpinningS: spraul("spinning"),
      spraulCpuS: spraul("cpu-time"),
      lostS,
      runLengthS: need("runLengthS"),
      lostWallPct,
      lostCpuPct: need("lostShareOfCpuPct"),
      cpuTimeS: need("cpuTimeS"),
    },
    lu: { slowBefore, slowAfter },
    sangappa,
    dipietroRatio,
  };
}

const f = (x: number, digits = 1): string => x.toFixed(digits);

/** The markdown table of notebook 00: one row per post, every number from `h`. */
export function introTable(h: IntroHeadlines): string {
  const { rostedt: r, lahr: l } = h;
  return [
    "| when | who | measured | headline (computed here) |",
    "| --- | --- | --- | --- |",
    `| 2001 | Lahr / Spraul | lockmeter, 2-way pgbench | \`runqueue_lock\` held ${f(l.runqueue.utilPct, 2)}% of the time, ${f(l.runqueue.conPct, 2)}% of acquisitions found it taken (CON); Spraul: ${l.spraulSpinningS} s of ${l.spraulCpuS} s lost to spinning in the 8-way run; the tables give ${f(l.lostS, 2)} s of a ${f(l.runLengthS, 0)} s wall-clock run (${f(l.lostWallPct, 2)}%; ${f(l.lostCpuPct, 3)}% of its ${f(l.cpuTimeS, 0)} CPU-seconds): small, as he concluded |`,
    `| 2023 | Lu | perf, sysbench + PostgreSQL | spinlock slow path ${f(h.lu.slowBefore, 2)}% → ${f(h.lu.slowAfter, 2)}% of samples after the mm_cid commit |`,
    `| 2023 | Rostedt | pgbench -S, ${r.without.n} + ${r.withPatch.n} runs | mean tps ${f(r.without.mean)} → ${f(r.withPatch.mean)} (${r.diffPct >= 0 ? "+" : ""}${f(r.diffPct, 2)}%); std dev ${f(r.without.sd)} → ${f(r.withPatch.sd)} (× ${f(r.sdRatio, 2)}) |`,
    `| 2024 | Sangappa | one figure per side | ${h.sangappa.map((s) => `${s.test}: +${f(s.gainPct, 1)}%`).join("; ")} |`,
    `| 2026 | Dipietro | pgbench, ${DIPIETRO_2026.vcpus} vCPUs | ${DIPIETRO_2026.tpsAfter} / ${DIPIETRO_2026.tpsBefore} tps = ${f(h.dipietroRatio, 2)}× on Linux 7.0; s_lock ${DIPIETRO_2026.sLockPct}% of CPU (as public write-ups print them: data/published/dipietro-2026) |`,
  ].join("\n");
}
