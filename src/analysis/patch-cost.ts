/**
 * Readings of the patch-cost records (the patch-cost studies' drivers, src/study/drivers/patch-cost.ts: analysis.json) that notebook 03
 * prints: the sentence on a run-after-run (blocks) design without an A/A arm is chosen by the data
 * (test/analysis-patch-cost.test.ts), not written whatever the sign or size of the difference.
 */
import { existsSync, readFileSync } from "node:fs";

/** One comparison of an analysis.json: cost = (1 − tps ratio) in %, with its 95% interval. */
export interface CostComparison {
  arm: string;
  reference: string;
  costPct: number;
  costCiPct: [number, number];
  verdict?: string | null;
  sdLogPerPair: number;
}

const pct = (x: number): string => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;

/** "+1.23% (95% CI … ): VERDICT" as notebook 03 prints a comparison. */
export function sayCost(c: CostComparison | undefined): string {
  return c ? `${pct(c.costPct)} (95% CI ${pct(c.costCiPct[0])} … ${pct(c.costCiPct[1])}${c.verdict ? `: ${c.verdict}` : ""})` : "not measured";
}

/**
 * What the switch-off comparison of a design without an A/A arm allows one to say:
 *   interval wholly below 0 (the patched server faster): the switch-off path only adds work, so a
 *     gain is a difference between the two servers, not the patch;
 *   wholly above 0 (slower): a cost or the servers' own difference, which the design cannot separate;
 *   containing 0: not resolved.
 * `onVsOff` (all against off on the same server) is quoted as the comparison free of that doubt.
 */
export function blocksCostReading(off: CostComparison, onVsOff: CostComparison | undefined): string {
  const [lo, hi] = off.costCiPct;
  const same = `all against off on the same server reads ${sayCost(onVsOff)}`;
  if (hi < 0) {
    return `The patched server with the switch off ran faster than the unpatched one (cost ${pct(off.costPct)}, 95% CI wholly below zero). The switch-off path only adds instructions, so a gain comes from the two servers (their binaries' code layout or memory placement, for example), not from the patch; ${same}. This design has no A/A arm to measure the servers' own difference.`;
  }
  if (lo > 0) {
    return `The patched server with the switch off ran slower than the unpatched one (cost ${pct(off.costPct)}, 95% CI wholly above zero); without an A/A arm this design cannot tell the patch's cost from the two servers' own difference; ${same}.`;
  }
  return `The switch-off interval contains zero (cost ${pct(off.costPct)}): this design does not resolve the cost here; ${same}.`;
}

// ---------------------------------------------------------------------------
// The records notebook 03 reads, and the rows and sentences it prints from them.


// eslint-disable-next-line @typescript-eslint/no-explicit-any
const readJsonFile = (path: string): any => JSON.parse(readFileSync(path, "utf8"));

/** A patch-cost/20261130T014521Z summary (data/runs/patch-cost/20261130T014521Z/summary.json), or null when it is not recorded. */
export function readMicroCost(file: string): any | null {
  return existsSync(file) ? readJsonFile(file) : null;
}

const f2 = (x: number): string => x.toFixed(2);

/** The rows of the micro-benchmark cost table: mode, mean added ns, CI, median, rounds. */
export function microCostRows(s: any): (string | number)[][] {
  const row = (label: string, x: any) => [label, f2(x.mean), `${f2(x.ci[0])} … ${f2(x.ci[1])}`, f2(x.median), x.n];
  return [row("off (hooks present, switch off)", s.addedNs.off), row("simulate (request protocol, no kernel)", s.addedNs.simulate)];
}

/** The sentence under the micro-benchmark cost table. */
export function microCostNote(s: any): string {
  return (
    `Baseline: ${f2(s.cpuNsPerIteration.none.mean)} ns of thread CPU time per uncontended lock/unlock (mean over ${s.design.rounds} rounds). Goal: at most ${s.goalNs} ns added. ` +
    `Load average while measuring: ${s.provenance.loadAverageStart.join(", ")} at the start, ${s.provenance.loadAverageEnd.join(", ")} at the end. ${s.provenance.note}`
  );
}

/** A pgbench cost record: where it is, its design and what one of its units is called. */
export interface CostRecordRef {
  dir: string;
  design: string;
  unit: "rounds" | "blocks";
}

export const ARM_NAMES: Record<string, string> = {
  baseline: "unpatched",
  baseline2: "unpatched, second cluster (A/A)",
  off: "patched, switch off",
  on: "patched, switch all",
};
const armName = (k: string): string => ARM_NAMES[k] ?? k;

/** The records that exist, in the given order. */
export function existingCostRecords(refs: CostRecordRef[]): CostRecordRef[] {
  return refs.filter((r) => existsSync(`${r.dir}/analysis.json`));
}

/** A record's analysis.json and provenance.json. */
export function readCostRecord(r: CostRecordRef): { analysis: any; provenance: any } {
  return { analysis: readJsonFile(`${r.dir}/analysis.json`), provenance: readJsonFile(`${r.dir}/provenance.json`) };
}

/** The heading sentence of a cost record (`dir` printed without a leading "../"). */
export function costRecordHeading(r: CostRecordRef, a: any, prov: any): string {
  return `**${r.design}** (\`${r.dir.replace("../", "")}\`): pgbench ${prov.design.workload.args.join(" ")}, ${a.blocks} ${r.unit}, ${a.started.slice(0, 16)} to ${a.ended.slice(11, 16)} UTC, load average ${prov.loadAverageStart[0]} at the start and ${a.loadAverageEnd[0]} at the end. Mean tps: ${Object.entries(a.meanTps).map(([k, v]) => `${armName(k)} ${(v as number).toFixed(0)}`).join(", ")}.`;
}

/** The header and rows of a cost record's comparison table. */
export function costRecordTable(r: CostRecordRef, a: any): { header: string[]; rows: (string | number)[][] } {
  return {
    header: ["arm / reference", "tps ratio (paired)", "95% CI", "cost", "cost 95% CI", `sd per ${r.unit.slice(0, -1)}`, "unpaired CI half-width", "goal cost ≤ 0.5%"],
    rows: a.comparisons.map((c: any) => [
      `${armName(c.arm)} / ${armName(c.reference)}`,
      c.ratio.toFixed(4),
      `${c.ci95[0].toFixed(4)} … ${c.ci95[1].toFixed(4)}`,
      pct(c.costPct),
      `${pct(c.costCiPct[0])} … ${pct(c.costCiPct[1])}`,
      `${(c.sdLogPerPair * 100).toFixed(2)}%`,
      `±${c.unpairedHalfWidthPct.toFixed(2)}%`,
      c.verdict ?? "(no goal)",
    ]),
  };
}

/**
 * The cost from measured parts: the most hook calls per transaction × the upper 95% limit of the
 * ns a call adds, over the CPU ns one transaction uses (CPUs / unpatched tps), in %.
 */
export function costModel(perTransaction: any, micro: any, analysis: any, cpus: number): { nsPerTxn: number; offPct: number; protocolPct: number } {
  const nsPerTxn = (cpus * 1e9) / analysis.meanTps.baseline;
  const bound = (ns: number) => ((perTransaction.requests.max * ns) / nsPerTxn) * 100;
  return { nsPerTxn, offPct: bound(micro.addedNs.off.ci[1]), protocolPct: bound(micro.addedNs.simulate.ci[1]) };
}

/** The summary line of one cost record for the notebook's conclusions (the blocks reading from blocksCostReading). */
export function costSummaryLine(r: CostRecordRef, a: any): string {
  const byArm = (arm: string, ref = "baseline"): CostComparison | undefined => a.comparisons.find((c: any) => c.arm === arm && c.reference === ref);
  const aa = byArm("baseline2");
  const off = byArm("off");
  return (
    `- pgbench -S cost, ${r.design} (${a.blocks} ${r.unit}): switch off ${sayCost(off)}, switch all ${sayCost(byArm("on"))} against unpatched` +
    (aa
      ? `; the A/A control (a second unpatched cluster) reads ${sayCost(aa)}, which is the floor of this design.`
      : r.unit === "blocks" && off
        ? `; per-block sd ${(off.sdLogPerPair * 100).toFixed(1)}%. ${blocksCostReading(off, byArm("on", "off"))}`
        : ".")
  );
}
