/**
 * The mechanism records under data/runs/mechanism-2026/, grouped for notebook
 * 07 and REPRODUCE §8: micro-benchmark records (`slicelab mechanism run`) are
 * pooled when they share the micro shape, kernel release, accel and vCPU
 * count (more blocks of one factorial); PostgreSQL records (`mechanism run
 * --pg`, rows with hugePages) are pooled by kernel, accel, server shape and
 * patch version (the record's postgres.patch hash, versions.json: v2 and v3
 * records are never pooled).
 * Rows get `run` prefixed with their record's name. Since issue 24 the
 * PostgreSQL records are their own study's (data/runs/mechanism-pg/): the
 * directory of the micro records is read with its sibling mechanism-pg.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UserError } from "../util/errors.js";
import { patchVersionOfField, recordPatchVersion } from "../postgres/patch-version.js";

export interface MechRecordGroup {
  /** Record names joined with " + ". */
  name: string;
  names: string[];
  /** Each record's directory, as cited: data/runs/STUDY/NAME. */
  paths: string[];
  kind: "micro-vm" | "micro-host" | "pg";
  kernelRelease: string;
  accel: string;
  cpus: number;
  /** PostgreSQL groups: the patch version of their records ("v2", "v3"; from record.json, else provenance's build); null for micro groups. */
  patchVersion?: string | null;
  /** The newest record's provenance, with plan and failed runs of every record. */
  prov: Record<string, any>;
  rows: any[];
}

function readJson(p: string): any {
  try {
    return JSON.parse(readFileSync(p, "utf8"));
  } catch (e) {
    throw new UserError(`${p}: not readable JSON (${(e as Error).message})`);
  }
}

/** The record directories to read for ROOT: ROOT, and for the micro records' directory (mechanism-2026) its sibling mechanism-pg. */
export function mechanismRoots(root: string): string[] {
  return basename(root) === "mechanism-2026" ? [root, join(dirname(root), "mechanism-pg")] : [root];
}

/** Every group, oldest first (by its newest record's name, which starts with a UTC stamp or a kind prefix). */
export function loadMechanismGroups(root: string): MechRecordGroup[] {
  const found = mechanismRoots(root).filter((r) => existsSync(r)).flatMap((r) =>
    readdirSync(r).filter((d) => existsSync(join(r, d, "rows.json")) && existsSync(join(r, d, "provenance.json"))).map((name) => ({ name, dir: join(r, name), path: `data/runs/${basename(r)}/${name}` })));
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groups = new Map<string, MechRecordGroup>();
  for (const { name, dir, path } of found) {
    const rows = readJson(join(dir, "rows.json"));
    const prov = readJson(join(dir, "provenance.json"));
    if (!Array.isArray(rows)) throw new UserError(`${join(dir, "rows.json")}: expected an array of rows`);
    const pg = rows.length > 0 && "hugePages" in rows[0];
    const accel = String(prov.vm?.accel ?? "unknown");
    const kind: MechRecordGroup["kind"] = pg ? "pg" : accel === "host" ? "micro-host" : "micro-vm";
    const release = String(prov.kernel?.release ?? "unknown");
    const cpus = Number(prov.vm?.cpus ?? 0);
    const patchVersion = pg ? pgPatchVersion(dir, prov) : null;
    // issue 26: attributed runs (--attribute, sched/features, extra micro arguments) are their own groups
    const key = JSON.stringify([kind, release, accel, cpus, prov.shape ?? null, prov.guest?.attribution ?? null, patchVersion, prov.onSetting ?? null]);
    const tagged = rows.map((r: any) => ({ ...r, run: `${name}/${r.run}` }));
    const g = groups.get(key);
    if (!g) {
      groups.set(key, { name, names: [name], paths: [path], kind, kernelRelease: release, accel, cpus, patchVersion, prov: { ...prov, plan: prov.plan ?? [], failed: prov.failed ?? [] }, rows: tagged });
    } else {
      g.names.push(name);
      g.paths.push(path);
      g.name = g.names.join(" + ");
      g.prov = { ...prov, plan: [...g.prov.plan, ...(prov.plan ?? [])], failed: [...g.prov.failed, ...(prov.failed ?? [])] };
      g.rows.push(...tagged);
    }
  }
  return [...groups.values()];
}

/** A PostgreSQL record's patch version: its envelope's postgres.patch, else the build named in provenance.json. */
function pgPatchVersion(dir: string, prov: Record<string, any>): string {
  const env = recordPatchVersion(dir);
  if (env.version !== "unknown") return env.version;
  return patchVersionOfField(prov.postgres?.build?.patch).version;
}

/**
 * The groups notebook 07 shows: the 7.x factorial under icount (the group with
 * most rows), the `none` reference (a 6.x kernel in the VM if recorded, else
 * this machine's kernel), plain-TCG contrasts, and the PostgreSQL factorial.
 */
export function pickMechanismGroups(groups: readonly MechRecordGroup[]): {
  vm: MechRecordGroup | null;
  noneVm: MechRecordGroup | null;
  host: MechRecordGroup | null;
  tcg: MechRecordGroup[];
  pg: MechRecordGroup | null;
  /** The PostgreSQL group with most rows of each patch version, run with slice_extension = all in its "on" runs (v2's are the issue-14 factorial, v3's its re-run, issue 27). */
  pgByVersion: Record<string, MechRecordGroup>;
  /** The rows the predictions read: the 7.x factorial plus the none reference (VM if present, else host). */
  rows: any[];
} {
  const most = (gs: MechRecordGroup[]) => (gs.length === 0 ? null : gs.reduce((a, b) => (b.rows.length > a.rows.length ? b : a)));
  const micro = groups.filter((g) => g.kind === "micro-vm");
  const vm = most(micro.filter((g) => g.accel === "tcg-icount" && /^[7-9]\./.test(g.kernelRelease)));
  const noneVm = most(micro.filter((g) => /^[1-6]\./.test(g.kernelRelease)));
  const host = most(groups.filter((g) => g.kind === "micro-host"));
  // plain-TCG contrasts of the factorial: the same kernel release (a 6.x none reference under plain TCG is the none reference, not a contrast)
  const tcg = micro.filter((g) => g.accel === "tcg" && g !== noneVm && (!vm || g.kernelRelease === vm.kernelRelease));
  const pgAll = groups.filter((g) => g.kind === "pg" && (g.prov.onSetting ?? "all") === "all");
  const pg = most(pgAll);
  const pgByVersion: Record<string, MechRecordGroup> = {};
  for (const v of [...new Set(pgAll.map((g) => g.patchVersion ?? "unknown"))].sort()) pgByVersion[v] = most(pgAll.filter((g) => (g.patchVersion ?? "unknown") === v))!;
  const rows = [...(vm?.rows ?? []), ...((noneVm ?? host)?.rows ?? [])];
  return { vm, noneVm, host, tcg, pg, pgByVersion, rows };
}

/** Issue 26: the micro groups made with --attribute (each a distinct set-up: sched/features, extra micro arguments). */
export function attributionGroups(groups: readonly MechRecordGroup[]): MechRecordGroup[] {
  return groups.filter((g) => g.kind === "micro-vm" && g.prov.guest?.attribution);
}

/** A short label of an attributed group's set-up ("NO_HRTICK; --syscall-in-cs 262144"). */
export function attributionLabel(g: MechRecordGroup): string {
  const a = g.prov.guest?.attribution ?? {};
  const parts = [...(a.schedFeatures ?? []), ...(a.extraMicroArgs?.length ? [a.extraMicroArgs.join(" ")] : [])];
  return parts.length ? parts.join("; ") : "default features (HRTICK)";
}

/** One line describing a micro group: records, runs, kernel, accel, shape. */
export function describeMicroGroup(g: MechRecordGroup): string {
  const s = g.prov.shape ?? {};
  const where = g.accel === "host" ? "this machine's kernel, no VM" : `QEMU accel \`${g.accel}\`, ${g.cpus} vCPU`;
  const names = g.paths.join(" + ");
  return `**${names}**: ${g.rows.length} runs (${g.prov.failed.length} planned runs failed), Linux ${g.kernelRelease}, ${where}; ` +
    `${s.threads} workers + ${s.hogs} hogs, ${s.csNs} ns sections ±${s.jitterPct} %, ${s.innerLocks ?? 0} nested acquires per hold, ` +
    `a fresh page every ${s.faultEvery}th section, ${s.durationS} s per run` + (g.prov.guest?.nrHugepages ? `; huge pages reserved: ${g.prov.guest.nrHugepages}` : "") + ".";
}
