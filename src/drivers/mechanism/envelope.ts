/**
 * The envelope (record.json) of a mechanism record (`slicelab mechanism run`,
 * micro or --pg, VM or --host), built from the record's own provenance.json
 * and rows.json: study mechanism-2026, where it ran, the design (factors, blocks,
 * seed), the command line, kernel, preemption modes and the slice extension as
 * the rows saw them. The runner writes it at the end of a run; `mechanism
 * analyse DIR` rewrites it (keeping what an older envelope knew that the
 * provenance does not, and a title someone wrote).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { UserError } from "../../util/errors.js";
import {
  isUnknown,
  RECORD_FILE,
  RECORD_FORMAT,
  readRecord,
  SUMS_FILE,
  unknown,
  writeRecord,
  type Field,
  type RecordEnvelope,
} from "../../record/format.js";

export const MECHANISM_STUDY = "mechanism-2026"; // studies/mechanism-2026.json (was "dipietro-2026": records then needed `slicelab record convert`)

type Json = Record<string, any>;

function readJson(p: string): any {
  if (!existsSync(p)) throw new UserError(`${p}: no such file (expected a record written by \`slicelab mechanism run\`)`);
  try {
    return JSON.parse(readFileSync(p, "utf8"));
  } catch (e) {
    throw new UserError(`${p}: not readable JSON (${(e as Error).message})`);
  }
}

const distinct = <T>(xs: T[]): T[] => [...new Set(xs)];

/** What the runner adds to provenance.json so the envelope needs nothing else. */
export interface RunContext {
  command: string[];
  started: string;
  ended: string;
  loadStart: [number, number, number];
  loadEnd: [number, number, number];
  /** The base seed and block count the command asked for. */
  design: { blocks: number; seed: number; factors: Record<string, string[]> };
}

/** The envelope of the mechanism record in DIR, from DIR/provenance.json and DIR/rows.json. */
export function mechanismEnvelope(dir: string): RecordEnvelope {
  const prov = readJson(join(dir, "provenance.json")) as Json;
  const rows = readJson(join(dir, "rows.json"));
  if (!Array.isArray(rows)) throw new UserError(`${join(dir, "rows.json")}: expected an array of rows`);
  const pg = rows.length > 0 && "hugePages" in rows[0];
  const vm = (prov.vm ?? {}) as Json;
  const host = vm.accel === "host";
  const accel = String(vm.accel ?? "unknown");
  const release = String(prov.kernel?.release ?? rows[0]?.kernelRelease ?? "");
  const plan = (Array.isArray(prov.plan) ? prov.plan : []) as Json[];
  const failed = (Array.isArray(prov.failed) ? prov.failed : []) as Json[];
  const pageKey = pg ? "hugePages" : "pages";
  const factorsFromPlan = {
    mode: distinct(plan.map((p) => String(p.mode))),
    [pg ? "huge_pages" : "pages"]: distinct(plan.map((p) => String(p[pageKey]))),
    extension: distinct(plan.map((p) => String(p.extension))),
  };
  const d = prov.design as RunContext["design"] | undefined;
  const design: Json = {
    kind: "blocks",
    factors: d?.factors ?? factorsFromPlan,
    blocks: d?.blocks ?? (plan.length ? Math.max(...plan.map((p) => Number(p.block))) : 0),
    seed: d?.seed ?? "not recorded (each run's own seed is in rows.json)",
    order: "every cell once per block, shuffled per block (seeded); mode switched at run time through debugfs sched/preempt",
    plannedRuns: plan.length,
    runsWithARow: rows.length,
    failedRuns: failed.length,
    shape: prov.shape ?? null,
    source: "provenance.json",
  };
  const stamp = `${rows.length} of ${plan.length} planned runs`;
  const where = host ? `on this machine's kernel (Linux ${release}, no VM)` : `in the VM (Linux ${release}, QEMU ${accel})`;
  const title = pg
    ? `Mechanism factorial on PostgreSQL 18 (diag build): mode × huge_pages × slice_extension ${where}, ${stamp}`
    : `Mechanism factorial (micro-benchmark --fault-in-cs): mode × pages × extension ${where}, ${stamp}`;
  const environment: RecordEnvelope["environment"] = host
    ? { kind: "host", detail: `this machine's kernel ${release}, no VM (provenance.json)` }
    : { kind: "vm", detail: `the kit's VM: QEMU ${accel.toUpperCase()} (${String(vm.accelReason ?? "?")}), ${String(vm.cpus ?? "?")} vCPU, ${String(vm.memMiB ?? "?")} MiB, boot line ${String(vm.append ?? "")} (provenance.json)` };

  const modes = distinct(rows.map((r: Json) => String(r.modeActive ?? r.mode)));
  const preemptMode: Field<string> = rows.length === 0
    ? unknown("no run produced a row")
    : host
      ? `${modes.join(", ")} (debugfs sched/preempt read, never changed; rows.json modeActive)`
      : `${modes.join(", ")} (a factor: written to debugfs sched/preempt before each run, read back as each row's modeActive)`;
  const onRows = rows.filter((r: Json) => r.extension === "on");
  let sliceExtension: Field<string>;
  if (pg) {
    const st = distinct(rows.map((r: Json) => String(r.sliceExtensionStatus ?? "")).filter((s) => s !== ""));
    sliceExtension = st.length ? `the server's slice_extension_status: ${st.join(" | ")} (rows.json)` : unknown("no row records slice_extension_status");
  } else if (onRows.length === 0) {
    sliceExtension = unknown("no extension-on run, so the kernel's grants were not exercised");
  } else {
    const granted = onRows.filter((r: Json) => typeof r.grants === "number" && r.grants > 0).length;
    sliceExtension = granted > 0
      ? `available: the kernel granted extensions in ${granted} of ${onRows.length} extension-on runs (rseq/stats, rows.json grants)`
      : `no grant in any of ${onRows.length} extension-on runs (rseq/stats, rows.json grants)`;
  }
  const cfg = prov.kernel?.build?.configSha256 ?? prov.kernel?.guestConfigSha256;
  const kit = (prov.kit ?? {}) as Json;
  const h = (prov.host ?? {}) as Json;
  const build = prov.postgres?.build as Json | null | undefined;
  const bin = prov.postgres?.bin as string | undefined;
  const postgres: RecordEnvelope["postgres"] = pg
    ? {
        version: build?.version ? String(build.version) : unknown("the server was given with --bin; its build record is not in provenance.json"),
        build: bin ? `${build ? `kit ${String(build.variant ?? "")} build` : "binaries (--bin)"} ${bin}` : unknown("provenance.json names no server binaries"),
        patch: build?.patch?.hash ? String(build.patch.hash) : build ? "none (the kit build has no patch)" : unknown("the server was given with --bin; its patch is not recorded"),
      }
    : { version: unknown("no PostgreSQL: the micro-benchmark"), build: unknown("no PostgreSQL: the micro-benchmark"), patch: unknown("no PostgreSQL: the micro-benchmark") };
  const iso = (x: unknown) => (typeof x === "string" && /^\d{4}-\d\d-\d\dT/.test(x) ? x : undefined);
  const concurrent: Field<string> = Array.isArray(prov.loadStart) && Array.isArray(prov.loadEnd)
    ? `host load average ${prov.loadStart.join(" ")} at the start, ${prov.loadEnd.join(" ")} at the end (a shared 2-vCPU machine; other jobs ran too)`
    : unknown("provenance.json records no load averages (the machine was shared)");
  const notes: string[] = [];
  if (!host && accel !== "kvm") notes.push("TCG functional evidence: counts of where preemptions land are the evidence; times and throughput are emulated");
  if (pg) notes.push("the diag build brackets every spin-style hold with getrusage(): tps is not a benchmark figure");
  if (failed.length) notes.push(`${failed.length} planned runs produced no row: ${failed.slice(0, 3).map((f) => `${String(f.run)} (${String(f.reason)})`).join("; ")}${failed.length > 3 ? "; …" : ""}`);
  return {
    format: RECORD_FORMAT,
    study: MECHANISM_STUDY,
    title,
    environment,
    design,
    command: Array.isArray(prov.command) && prov.command.length > 0 ? (prov.command as string[]) : unknown("provenance.json does not record the command line (a record made before the runner wrote its envelope)"),
    kit: {
      commit: typeof kit.commit === "string" ? kit.commit : unknown("provenance.json records no kit commit"),
      dirty: typeof kit.dirty === "boolean" ? kit.dirty : unknown("provenance.json does not record whether the tree was dirty"),
    },
    host: {
      hostname: typeof h.hostname === "string" ? h.hostname : unknown("provenance.json records no host name"),
      cpuModel: typeof h.cpuModel === "string" ? h.cpuModel : unknown("provenance.json records no CPU model"),
      cpus: typeof h.cpus === "number" && h.cpus > 0 ? h.cpus : unknown("provenance.json records no CPU count"),
      memoryBytes: typeof h.memoryBytes === "number" && h.memoryBytes > 0 ? h.memoryBytes : unknown("provenance.json records no memory size"),
    },
    kernel: {
      release: release || unknown("neither provenance.json nor the rows record the kernel release"),
      configSha256: typeof cfg === "string" && /^[0-9a-f]{64}$/.test(cfg) ? cfg : unknown("provenance.json records no kernel config hash"),
      preemptMode,
      sliceExtension,
    },
    glibc: unknown(pg ? "the guest runs the host's PostgreSQL build; the C library version is not recorded" : "the micro-benchmark's C library is not recorded"),
    postgres,
    started: iso(prov.started) ?? unknown("provenance.json does not record when the run started"),
    ended: iso(prov.ended) ?? unknown("provenance.json does not record when the run ended"),
    concurrent,
    files: readdirSync(dir).filter((n) => n !== RECORD_FILE && n !== SUMS_FILE).sort(),
    derivedFrom: Array.isArray(prov.command) ? [] : ["provenance.json", "rows.json"],
    analysis: unknown(pg ? "the study's paired-contrast rule is not applied to a mechanism record; answer.txt and cells.json say what the runs show" : "the study's paired-contrast rule is not applied to a mechanism record; predictions.json holds the verdicts of the source's predictions, answer.txt what the runs show"),
    notes,
  };
}

/**
 * Writes DIR/record.json. An envelope already there (e.g. one derived by hand
 * before the runner wrote its own) keeps every field the provenance cannot
 * state and its notes.
 */
export function writeMechanismEnvelope(dir: string): RecordEnvelope {
  const fresh = mechanismEnvelope(dir);
  if (existsSync(join(dir, RECORD_FILE))) {
    const old = readRecord(dir);
    const keep = <T>(n: Field<T>, o: Field<T>): Field<T> => (isUnknown(n) && !isUnknown(o) ? o : n);
    // a title someone wrote (not the bare directory name a derived envelope falls back to) says more than ours
    if (old.title !== basename(dir)) fresh.title = old.title;
    fresh.command = keep(fresh.command, old.command);
    fresh.started = keep(fresh.started, old.started);
    fresh.ended = keep(fresh.ended, old.ended);
    fresh.concurrent = keep(fresh.concurrent, old.concurrent);
    fresh.glibc = keep(fresh.glibc, old.glibc);
    for (const k of ["version", "build", "patch"] as const) fresh.postgres[k] = keep(fresh.postgres[k], old.postgres[k]);
    fresh.notes = distinct([...fresh.notes, ...old.notes.filter((n) => !/^envelope derived by/.test(n))]);
  }
  writeRecord(dir, fresh);
  return fresh;
}
