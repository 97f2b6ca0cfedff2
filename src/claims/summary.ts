/**
 * The "What this notebook showed" paragraph of notebook 01: every clause is chosen by the verdicts
 * and values of the ledger entries it names, so the sentence cannot say more than the ledger does.
 */
import type { ClaimEntry } from "./entry.js";
import { findClaim } from "./ledger.js";
import { fmt, fmtP, fmtSignedPct } from "./numbers.js";
import { VERDICTS } from "./verdicts.js";

const num = (e: ClaimEntry, key: string): number => {
  const v = e.values[key];
  if (typeof v !== "number") throw new Error(`${e.id}: no value ${key}`);
  return v;
};

/** Rostedt's mean difference, by its verdict. */
export function differenceClause(d: ClaimEntry, runsPerSide: number): string {
  const gain = `Rostedt's ${fmtSignedPct(num(d, "differencePct"), 2)} gain`;
  const p = `Welch p = ${fmtP(num(d, "welchP"))}`;
  switch (d.verdict) {
    case "not significant":
      return `${gain} is inconclusive: not distinguishable from the run-to-run noise of his ${runsPerSide} runs per side, which is not evidence of no effect (${p})`;
    case "fragile":
      return (
        `${gain} is fragile: whether it stands out from the run-to-run noise of his ${runsPerSide} runs per side depends on the analysis ` +
        `(${p}, Mann–Whitney p = ${fmtP(num(d, "mannWhitneyP"))}; the bootstrap interval excludes 0 for ${fmt(num(d, "bootstrapSeedsExcludingZero"), 0)} of 5 seeds)`
      );
    default:
      return `${gain} is ${d.verdict} (${p})`;
  }
}

/** Rostedt's smaller spread: "rests on one run" only when leaving that run out takes the F-test's significance away. */
export function spreadClause(s: ClaimEntry, alpha: number): string {
  const withIt = num(s, "fTestP");
  const without = num(s, "fTestPWithoutOutlier");
  const rests = s.verdict === "fragile" && num(s, "leaveOneOutFlips") === 1 && withIt < alpha && without >= alpha;
  return `his smaller standard deviation ${rests ? "rests on one unpatched run" : `is ${s.verdict}`} (F-test p = ${fmtP(withIt)} with it, ${fmtP(without)} without)`;
}

/** Spraul's 0.7 s: what the tool's definition gives, and what this output's rows say. */
export function spraulClause(l: ClaimEntry, small: ClaimEntry, spraulS: number): string {
  const stillSmall = small.verdict === "recomputed" ? "either way a small share of the CPU time" : "not a small share of the CPU time";
  if (l.verdict === "recomputed") {
    const per = num(l, "toolLostS");
    const acq = num(l, "lostPerAcquisitionS");
    const rowsDisagree = num(l, "rowsPerSpinImpossible") > 0;
    return (
      `Spraul's ${spraulS} s is recomputed: it is what the tool's own definition of WAIT MEAN gives (${fmt(per, 3)} s)` +
      (rowsDisagree ? `, though this output's rows show means divided by all acquisitions, which makes it ${fmt(acq, 2)} s` : "") +
      `, ${stillSmall}`
    );
  }
  return `Spraul's lost time is ${l.verdict} (${fmt(num(l, "toolLostS"), 3)} s by the tool's definition against his ${spraulS} s), ${stillSmall}`;
}

/** The whole paragraph. */
export function ledgerSummary(ledger: readonly ClaimEntry[], o: { runsPerSide: number; spraulS: number; alpha: number }): string {
  const claim = (id: string) => findClaim(ledger, id);
  const count = (v: string) => ledger.filter((e) => e.verdict === v).length;
  const sangappa = ledger.filter((e) => e.source === "sangappa-2024" && e.id.endsWith("-improvement"));
  const sangappaOurs = [...new Set(sangappa.map((e) => e.reproduction.status))];
  const benefit = claim("sangappa-2024/clearly-shows-benefit");
  return (
    `**What this notebook showed.** Of ${ledger.length} claims: ${VERDICTS.filter((v) => count(v) > 0).map((v) => `${count(v)} ${v}`).join(", ")}. ` +
    `${differenceClause(claim("rostedt-2023/difference-beyond-noise"), o.runsPerSide)}; ` +
    `${spreadClause(claim("rostedt-2023/smaller-std-dev"), o.alpha)}. ` +
    `${spraulClause(claim("lahr-2001/spraul-lost-time"), claim("lahr-2001/contention-high-lost-small"), o.spraulS)}. ` +
    `Sangappa's percentages ${sangappa.every((e) => e.verdict === "recomputed") ? "follow" : "do not all follow"} from his figures (recomputed from the posted figures; our runs: ${sangappaOurs.join(", ")}), ` +
    `but ${benefit.verdict === "not checkable" ? "a single figure per side carries no uncertainty: the kit's own runs have to supply it" : `the benefit is ${benefit.verdict}`}. ` +
    `Of the ${ledger.length} entries, our own runs reproduce ${ledger.filter((e) => e.reproduction.status === "reproduced").length}; ` +
    `${ledger.filter((e) => e.reproduction.status === "not yet reproduced").length} are not yet reproduced (not run, or only in a VM under TCG).`
  );
}
