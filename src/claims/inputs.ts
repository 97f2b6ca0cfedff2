/**
 * Turns the tidy published data (src/published) into the inputs of the claim
 * modules. Everything here is read from data/published/: values from the tidy
 * JSON, printed precision from the raw excerpt line each value points at.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  fact,
  loadLahr2001,
  loadLu2023,
  loadRostedt2023,
  loadSangappa2024,
  type Lahr2001,
  type Lu2023,
  type Rostedt2023,
  type Sangappa2024,
} from "../published/index.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { decimalsOf } from "./numbers.js";
import type { LahrData } from "./lahr.js";
import type { LuData } from "./lu.js";
import type { RostedtData, RostedtSide } from "./rostedt.js";
import type { SangappaTest } from "./sangappa.js";

/** Line `line` (1-based) of a repository file and the lines after it. */
function linesFrom(file: string, line: number): string[] {
  let text: string;
  try {
    text = readFileSync(join(repoRoot(), file), "utf8");
  } catch (err) {
    throw new UserError(`${file}: cannot read the raw excerpt (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return text.split(/\r?\n/).slice(line - 1);
}

/**
 * The printed text of a number: the first match of `re` (one capture group) at or
 * after `file:line`, checked against the tidy value.
 */
function printedAt(file: string, line: number, re: RegExp, value: number, what: string): string {
  const lines = linesFrom(file, line);
  for (let i = 0; i < lines.length; i++) {
    const m = re.exec(lines[i]!);
    if (m) {
      if (Number(m[1]) !== value) {
        throw new UserError(`${file}:${line + i}: expected ${what} ${value} (from the tidy data), found ${JSON.stringify(m[1])}`);
      }
      return m[1]!;
    }
  }
  throw new UserError(`${file}:${line}: expected ${what} at or after this line, found none`);
}

const SIDE_LABEL = { "without-patch": "without patch", "with-patch": "with patch" } as const;

/** Rostedt's two sides with the printed precision of his Average / Std Dev. */
export function rostedtInput(data: Rostedt2023 = loadRostedt2023()): RostedtData {
  const side = (s: "without-patch" | "with-patch"): RostedtSide => {
    const runs = data.runs.filter((r) => r.side === s).sort((a, b) => a.run - b.run);
    const first = runs.filter((r) => r.role === "first");
    const measured = runs.filter((r) => r.role === "measured").map((r) => r.tps);
    if (first.length !== 1) throw new UserError(`rostedt-2023/runs.json: expected one first run ${SIDE_LABEL[s]}, found ${first.length}`);
    const rep = data.reported.find((r) => r.side === s);
    if (!rep) throw new UserError(`rostedt-2023/reported.json: no Average/Std Dev ${SIDE_LABEL[s]}`);
    const avg = printedAt(rep.file, rep.line, /Average:\s*([\d.]+)/, rep.average, "an Average");
    const sdv = printedAt(rep.file, rep.line, /Std Dev:\s*([\d.]+)/, rep.stdDev, "a Std Dev");
    return {
      label: SIDE_LABEL[s],
      first: first[0]!.tps,
      runs: measured,
      reportedAverage: { value: rep.average, decimals: decimalsOf(avg) },
      reportedStdDev: { value: rep.stdDev, decimals: decimalsOf(sdv) },
    };
  };
  return { unpatched: side("without-patch"), patched: side("with-patch") };
}

const SUFFIX: Record<string, number> = { "": 1, K: 1e3, M: 1e6, G: 1e9 };

/** Value of one unit in the last place of a printed figure like "182K" (1000) or "1.5M" (100000). */
export function printedResolution(printed: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)$/.exec(printed.trim());
  if (!m) throw new UserError(`not a printed throughput figure: ${JSON.stringify(printed)}`);
  return SUFFIX[m[2]!]! * 10 ** -decimalsOf(m[1]!);
}

/** A short key for a test name: "Lock table test" → "lock-table", "Swingbench" → "swingbench". */
export function testKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/\btest\b/g, "")
    .trim()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** Sangappa's tests with the resolution of their "K" figures. */
export function sangappaInput(data: Sangappa2024 = loadSangappa2024()): SangappaTest[] {
  return data.results.map((r) => {
    if (r.statedImprovementPct === null || r.statedImprovementText === null) {
      throw new UserError(`${r.file}:${r.line}: expected a stated improvement for ${r.test}, found none`);
    }
    const stated = /(\d+(?:\.\d+)?)\s*%/.exec(r.statedImprovementText);
    if (!stated) throw new UserError(`${r.file}:${r.statedImprovementLine}: expected "N%", found ${JSON.stringify(r.statedImprovementText)}`);
    const resolution = Math.max(printedResolution(r.withoutPrinted), printedResolution(r.withPrinted));
    return {
      key: testKey(r.test),
      name: r.test,
      without: r.without,
      with: r.withFeature,
      withoutPrinted: r.withoutPrinted,
      withPrinted: r.withPrinted,
      resolution,
      unit: r.unit,
      statedImprovementPct: r.statedImprovementPct,
      statedDecimals: decimalsOf(stated[1]!),
      // Each record holds one number per side: a single measurement (or an unstated summary of several).
      runsPerSide: 1,
    };
  });
}

/** The lock Spraul's reply is about (Lahr asked "is anyone working on reducing sem_ids contention?"). */
const SPRAUL_LOCK_PREFIX = "sem_ids";

/** Lahr's tables, Spraul's figures and the configuration of each machine. */
export function lahrInput(data: Lahr2001 = loadLahr2001()): LahrData {
  const fig = (id: string) => {
    const f = data.spraul.find((x) => x.id === id);
    if (!f) throw new UserError(`lahr-2001/spraul.json: no figure "${id}"`);
    return f;
  };
  const wall = fig("wall-clock");
  const cpu = fig("cpu-time");
  const lost = fig("spinning");
  const lostText = /(\d+(?:\.\d+)?)/.exec(lost.quote);
  if (!lostText || Number(lostText[1]) !== lost.value) {
    throw new UserError(`${lost.file}:${lost.line}: expected ${lost.value} in ${JSON.stringify(lost.quote)}`);
  }
  const way = /(\d+)-way/.exec(wall.quote);
  if (!way) throw new UserError(`${wall.file}:${wall.line}: expected "N-way" in ${JSON.stringify(wall.quote)}`);
  const spraulSection = `${way[1]}way`;
  const lock = data.rows.find((r) => r.section === spraulSection && r.kind === "lock" && r.name.startsWith(SPRAUL_LOCK_PREFIX));
  if (!lock) throw new UserError(`lahr-2001/lockmeter.json: no ${SPRAUL_LOCK_PREFIX} lock row in section ${spraulSection}`);
  const mq = data.machines.filter((m) => /\bMQ/.test(m.kernel)).map((m) => m.machine);
  const noMq = data.machines.filter((m) => !/\bMQ/.test(m.kernel)).map((m) => m.machine);
  if (noMq.length !== 1 || mq.length === 0) {
    throw new UserError(`lahr-2001/configuration.json: expected one machine without the multiqueue patch and others with it, found ${noMq.length} and ${mq.length}`);
  }
  const ctx = (id: string) => {
    const f = data.context.find((x) => x.id === id);
    if (!f) throw new UserError(`lahr-2001/context.json: expected a fact "${id}", found none`);
    return f.value;
  };
  const hz = ctx("hz");
  if (typeof hz !== "number" || !(hz > 0)) throw new UserError(`lahr-2001/context.json: expected a positive number for "hz", found ${JSON.stringify(hz)}`);
  const backoff = ctx("postgres_s_spincycle_us");
  if (!Array.isArray(backoff) || backoff.length === 0 || !backoff.every((x) => Number.isFinite(x) && x >= 0)) {
    throw new UserError(`lahr-2001/context.json: expected a list of non-negative µs for "postgres_s_spincycle_us", found ${JSON.stringify(backoff)}`);
  }
  const ls = data.context.find((x) => x.id === "lockstat_definitions");
  if (!ls) throw new UserError(`lahr-2001/context.json: expected a fact "lockstat_definitions", found none`);
  const defs = ls.definitions ?? {};
  const divisor = defs.waitMeanDivisor;
  const util = defs.utilDenominator;
  if (typeof ls.value !== "string" || typeof ls.url !== "string" || (divisor !== "spin" && divisor !== "total") || (util !== "wall" && util !== "cpu")) {
    throw new UserError(
      `lahr-2001/context.json: expected "lockstat_definitions" with a version string, a url and definitions.waitMeanDivisor "spin"|"total", definitions.utilDenominator "wall"|"cpu", found ${JSON.stringify({ value: ls.value, url: ls.url, definitions: ls.definitions })}`,
    );
  }
  return {
    rows: data.rows,
    lockstat: { version: ls.value, url: ls.url, waitMeanDivisor: divisor, utilDenominator: util },
    spraul: { wallS: wall.value, cpuS: cpu.value, lostS: lost.value, lostDecimals: decimalsOf(lostText[1]!) },
    cpus: Object.fromEntries(data.machines.map((m) => [m.machine, m.cpus])),
    hz,
    backoffUs: backoff,
    withoutMq: noMq[0]!,
    withMq: mq,
    spraulSection,
    spraulLock: lock.name,
    configuration: Object.fromEntries(data.machines.map((m) => [m.machine, `${m.cpu}, kernel ${m.kernel}`])),
  };
}

/** Lu's two profiles with the printed precision of the shares. */
export function luInput(data: Lu2023 = loadLu2023()): LuData {
  const rows = (kernel: "before" | "after") =>
    data.profile
      .filter((r) => r.kernel === kernel)
      .map((r) => {
        if (r.childrenPct === null) throw new UserError(`${r.file}:${r.line}: expected a Children column for ${r.symbol}, found none`);
        return { symbol: r.symbol, childrenPct: r.childrenPct, selfPct: r.selfPct };
      });
  const decimals = new Set<number>();
  for (const r of data.profile) {
    const line = linesFrom(r.file, r.line)[0] ?? "";
    for (const m of line.matchAll(/(\d+(?:\.\d+)?)%/g)) decimals.add(decimalsOf(m[1]!));
  }
  if (decimals.size !== 1) throw new UserError(`lu-2023/profile.json: expected one printed precision for all shares, found ${[...decimals].join(", ")}`);
  const commit = fact(data.provenance, "commit");
  if (typeof commit !== "string") throw new UserError(`lu-2023/provenance.json: expected the commit as a string, found ${JSON.stringify(commit)}`);
  return { before: rows("before"), after: rows("after"), decimals: [...decimals][0]!, commit };
}
