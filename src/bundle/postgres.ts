/**
 * The PostgreSQL part of `slicelab bundle` (issue 25 item 1): a series study (`"driver": "series"`,
 * e.g. dipietro-2026-metal) packed so that run.sh can run it with nothing but sh and coreutils.
 *
 *   pg/NAME/bin/PROG       a two-line sh wrapper: the bundled loader runs the real program with
 *                          `--library-path` (the build's lib/ and pg/sys/) and `--argv0` (so the
 *                          program finds share/ and lib/ beside bin/, as PostgreSQL does from argv[0])
 *   pg/NAME/libexec/PROG   the build's postgres, initdb, pg_ctl, pgbench and psql, unchanged
 *   pg/NAME/lib, share     the build's server modules and libpq, its share/ (catalog, time zones)
 *   pg/sys/                the ldd closure of the programs (libc, libm, libz) and ld-linux-x86-64.so.2
 *   plans/P.sh, P.json     one plan per path (as the micro bundle: mode switched or current ×
 *                          extension arms or off only), its runs made by the kit's `cells`,
 *                          `cellVariant` and `planSeries`, the runner's own functions
 *   plans/workloads.sh, workloads.json
 *                          the protocol's workloads resolved by `resolveWorkloads` for every CPU count
 *                          up to PG_MAX_CPUS (clients and threads scale with the CPUs), server settings
 *                          formatted by the cluster's `confValue`, commands by `toolCommand`
 *
 * Builds: baseline and patched (the study's build factor; the reference plans, on a kernel without the
 * extension, add baseline beside patched with the extension off: the patch's cost where the kernel
 * lacks the feature), and the diagnostic build when one is finished (not used by a series plan).
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { planSeries, type PlannedRun } from "../bench/design.js";
import { loadProtocol, resolveWorkloads, type Protocol, type ResolvedWorkload } from "../bench/protocol.js";
import { toolCommand } from "../bench/tools.js";
import { variantRecord } from "../bench/variant.js";
import { confValue, type Cluster } from "../postgres/cluster.js";
import { installRoot, readBuildRecord, type BuildRecord, type BuildVariant } from "../postgres/build.js";
import { diagPatchHash, patchHash } from "../postgres/patch.js";
import { patchVersionOf } from "../postgres/patch-version.js";
import { PG_USER } from "../postgres/user.js";
import { cachedPatchedBuild, cellVariant } from "../study/run.js";
import { cells, type Factor, type Study } from "../study/study.js";
import { sizeMiB } from "../study/checks.js";
import { UserError } from "../util/errors.js";
import { workDir } from "../util/paths.js";
import { shQuote } from "../vm/guest-init.js";
import type { BundlePlan } from "./format.js";
import { pgPlanScript, pgWorkloadsScript } from "./pg-sh.js";

/** The programs a series run needs of each build. */
export const PG_PROGRAMS = ["postgres", "initdb", "pg_ctl", "pgbench", "psql"] as const;
/** Workloads are resolved for 1 … PG_MAX_CPUS CPUs; run.sh refuses a machine with more (make the bundle again with a larger value). */
export const PG_MAX_CPUS = 256;
/** The socket's port number (the socket lives in the results directory; no TCP address is opened). */
export const PG_PORT = 55432;

export interface PgBundleBuild {
  name: BuildVariant;
  version: string;
  /** The prefix it was copied from on the bundle's maker. */
  from: string;
  sourceKey: string;
  patch: { hash: string; files: string[]; version: string | null } | null;
  buildRecordSha256: string;
  configure: string[];
  cc: string;
}

/** One planned run of a PostgreSQL plan: the series' PlannedRun plus what run.sh needs to run it. */
export interface PgBundleRun extends PlannedRun {
  build: string;
  mode: string;
  extension: string;
  settings: Record<string, string>;
  env: Record<string, string>;
}

export interface PgPlanFile {
  name: string;
  runs: PgBundleRun[];
  cells: { name: string; levels: Record<string, string> }[];
  factors: Factor[];
  /** The series' variant records (variantRecord), bin named by the bundle's build. */
  variants: Record<string, unknown>[];
  runsPerCell: number;
  warmup: number;
}

export interface PgManifestPart {
  protocol: { name: string; file: string; hash: string };
  params: Record<string, string>;
  builds: PgBundleBuild[];
  /** The bundled C library's version (ld.so --version): decides GLIBC_TUNABLES for the patched build. */
  glibc: string;
  systemLibs: string[];
  maxCpus: number;
  port: number;
  clusterUser: string;
}

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** A finished kit build of PostgreSQL 18 of this variant (the current patch for patched/diag), or undefined. */
export function cachedBuild(variant: BuildVariant): string | undefined {
  if (variant === "patched") return cachedPatchedBuild();
  const tag = variant === "baseline" ? "-baseline-" : `-diag-${patchHash("18")}-${diagPatchHash("18")}-`;
  for (const root of [installRoot(), join(workDir(), "postgres", "install")]) {
    if (!existsSync(root)) continue;
    for (const d of readdirSync(root).sort().reverse()) {
      if (!d.startsWith("18.") || !d.includes(tag)) continue;
      if (existsSync(join(root, d, "slicelab-build.json")) && existsSync(join(root, d, "bin", "postgres"))) return join(root, d, "bin");
    }
  }
  return undefined;
}

/** Why a study cannot be bundled as a PostgreSQL series, or null when it can. */
export function pgBundleRefusal(study: Study, protocol: Protocol): string | null {
  for (const f of study.factors) {
    if (f.changes !== "run") return `factor ${f.name} changes with a ${f.changes} (${f.via}); a bundle runs in one boot`;
    if (f.via === "setting:huge_pages") return `factor ${f.name} (huge_pages) needs huge pages reserved per run, which run.sh does not do yet`;
    if (!(f.via === "bin" || f.via === "preempt" || f.via.startsWith("setting:"))) return `factor ${f.name} is set through ${f.via}, which run.sh does not do`;
  }
  if (study.collectors?.length) return `the study's collectors (${study.collectors.join(", ")}) need the kit's Node side`;
  for (const w of protocol.expanded) {
    if (w.spec.tool !== "pgbench") return `workload ${w.name} uses ${w.spec.tool}; the bundle carries pgbench only`;
    if (JSON.stringify(w.spec).includes("{protocolDir}")) return `workload ${w.name} reads files beside the protocol ({protocolDir}), which are not bundled`;
  }
  return null;
}

/** The four plans: mode switched (the study's modes; without the extension `none` too) or current × extension arms or off only (then baseline beside patched). */
export function pgBundlePlans(study: Study, o: { blocks: number; warmup: number; seed: number; glibc: string }): { plan: BundlePlan; file: PgPlanFile }[] {
  const modeF = study.factors.find((x) => x.via === "preempt");
  const extF = study.factors.find((x) => x.via === "setting:slice_extension");
  const buildF = study.factors.find((x) => x.via === "bin");
  const studyModes = modeF?.levels ?? ["current"];
  const variants = [
    { name: "dyn-ext", modes: studyModes, ext: extF?.levels ?? ["off"], builds: buildF?.levels ?? ["patched"] },
    { name: "dyn-noext", modes: [...new Set(["none", ...studyModes])], ext: ["off"], builds: [...new Set(["baseline", ...(buildF?.levels ?? ["patched"])])] },
    { name: "cur-ext", modes: ["current"], ext: extF?.levels ?? ["off"], builds: buildF?.levels ?? ["patched"] },
    { name: "cur-noext", modes: ["current"], ext: ["off"], builds: [...new Set(["baseline", ...(buildF?.levels ?? ["patched"])])] },
  ];
  return variants.map((v) => {
    const factors: Factor[] = [
      { ...(buildF ?? { name: "build", via: "bin", changes: "run" }), levels: v.builds } as Factor,
      { ...(modeF ?? { name: "mode", via: "preempt", changes: "run" }), levels: v.modes } as Factor,
      ...(extF ? [{ ...extF, levels: v.ext } as Factor] : []),
      ...study.factors.filter((x) => x !== modeF && x !== extF && x !== buildF),
    ];
    const cs = cells(factors);
    const byName = new Map(cs.map((c) => [c.name, c]));
    const planned = planSeries(cs.map((c) => c.name), o.blocks, o.warmup, "blocks", o.seed);
    // The kit's cellVariant: settings, and for the patched build GLIBC_TUNABLES when the (bundled) glibc is older than 2.41; the bin is the bundle's own directory.
    // The unpatched server knows no slice_extension setting (it would refuse to start): its cells run without one, as patch-cost's baseline arm.
    const variantOf = (c: (typeof cs)[number]) => {
      const v = cellVariant(c, factors, "pg/patched/bin", o.glibc);
      const build = c.levels[factors[0]!.name]!;
      const settings = build === "baseline" ? Object.fromEntries(Object.entries(v.settings).filter(([k]) => !k.startsWith("slice_extension"))) : v.settings;
      return { ...v, settings, bin: `pg/${build}/bin` };
    };
    const runs: PgBundleRun[] = planned.map((p) => {
      const c = byName.get(p.variant)!;
      const vv = variantOf(c);
      return { ...p, build: c.levels[factors[0]!.name]!, mode: c.levels[factors[1]!.name]!, extension: extF ? c.levels[extF.name]! : "off", settings: vv.settings, env: vv.env };
    });
    const perBlock = cs.length;
    return {
      plan: { name: v.name, modes: v.modes, pages: [], extensions: v.ext, builds: v.builds, blocks: o.blocks, runs: runs.length, perBlock },
      file: { name: v.name, runs, cells: cs, factors, variants: cs.map((c) => variantRecord(variantOf(c))), runsPerCell: o.blocks, warmup: o.warmup },
    };
  });
}

/** The protocol's workloads for every CPU count 1 … max, grouped where they resolve alike. */
export function workloadsByCpus(protocol: Protocol, params: Record<string, string>, max = PG_MAX_CPUS): { cpus: number[]; workloads: ResolvedWorkload[] }[] {
  const groups = new Map<string, { cpus: number[]; workloads: ResolvedWorkload[] }>();
  for (let n = 1; n <= max; n++) {
    const w = resolveWorkloads(protocol, n, params).map((x) => ({ ...x, params: Object.fromEntries(Object.entries(x.params).filter(([k]) => k !== "protocolDir")) }));
    const key = JSON.stringify(w.map((x) => ({ ...x, params: { ...x.params, cpus: 0 } })));
    const g = groups.get(key);
    if (g) g.cpus.push(n);
    else groups.set(key, { cpus: [n], workloads: w });
  }
  return [...groups.values()];
}

/** The setup key of a workload (the runner's ensureSetup: database, tool and steps). */
export function setupKey(w: ResolvedWorkload): string {
  return createHash("sha256").update(JSON.stringify({ database: w.database, tool: w.tool, setup: w.setup })).digest("hex").slice(0, 16);
}

/** A cluster as toolCommand sees it: the socket and port are run.sh's, filled in by sh. */
const SOCK = "@@SOCK@@";
const PORT = "@@PORT@@";
export function pgbenchWords(w: ResolvedWorkload, args: string[]): string {
  const cluster = { socketDir: SOCK, port: PORT as unknown as number } as unknown as Cluster;
  // toolCommand checks that the client exists: the patched build's, whose bin/pgbench the bundle carries (run.sh names its own).
  const cmd = toolCommand("pgbench", { binDir: cachedBuild("patched") ?? "/nonexistent" }, cluster, w.database, args);
  return cmd.args.map((a) => (a === SOCK ? '"$SOCK"' : a === PORT ? '"$PORT"' : shQuote(a))).join(" ");
}

/** The server settings of a workload or variant as postgresql.conf lines (the cluster's own formatter). */
export function confLines(settings: Record<string, string | number | boolean>): string {
  return Object.entries(settings).map(([k, v]) => `${k} = ${confValue(v)}`).join("\n");
}

function lddClosure(files: string[]): string[] {
  const libs = new Set<string>();
  for (const f of files) {
    const out = execFileSync("ldd", [f], { encoding: "utf8" });
    for (const line of out.split("\n")) {
      const m = /=>\s+(\/\S+)\s/.exec(line) ?? /^\s*(\/\S+ld-linux[^\s]*)\s/.exec(line);
      if (m && !m[1]!.includes("/postgres/install/")) libs.add(m[1]!);
    }
  }
  return [...libs].sort();
}

/** Copies the builds, their libraries and the loader into ROOT/pg; returns what the manifest says of them. */
export function packPgBuilds(root: string, variants: BuildVariant[]): { builds: PgBundleBuild[]; systemLibs: string[]; glibc: string; files: string[] } {
  const files: string[] = [];
  const builds: PgBundleBuild[] = [];
  const programs: string[] = [];
  for (const v of variants) {
    const bin = cachedBuild(v);
    if (!bin) throw new UserError(`the ${v} PostgreSQL 18 build is not prepared: run \`slicelab postgres build --variant ${v}\` (or \`slicelab prepare test\`) first`);
    const prefix = dirname(bin);
    const rec = readBuildRecord(prefix) as BuildRecord;
    const dst = join(root, "pg", v);
    mkdirSync(join(dst, "bin"), { recursive: true });
    mkdirSync(join(dst, "libexec"));
    mkdirSync(join(dst, "lib"));
    for (const p of PG_PROGRAMS) {
      copyFileSync(join(bin, p), join(dst, "libexec", p));
      chmodSync(join(dst, "libexec", p), 0o755);
      programs.push(join(bin, p));
      writeFileSync(join(dst, "bin", p), wrapper(p));
      chmodSync(join(dst, "bin", p), 0o755);
      files.push(`pg/${v}/bin/${p}`, `pg/${v}/libexec/${p}`);
    }
    for (const l of readdirSync(join(prefix, "lib"))) {
      const src = join(prefix, "lib", l);
      // The server's modules and libpq; not the static archives, ecpg or pgxs.
      if (!(l.endsWith(".so") || /^libpq\.so\.\d+$/.test(l)) || l.startsWith("libecpg") || l.startsWith("libpgtypes") || !statSync(src).isFile()) continue;
      copyFileSync(realpathSync(src), join(dst, "lib", l));
      files.push(`pg/${v}/lib/${l}`);
    }
    cpSync(join(prefix, "share"), join(dst, "share"), { recursive: true });
    const walk = (d: string, rel: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p, `${rel}/${n}`);
        else files.push(`${rel}/${n}`);
      }
    };
    walk(join(dst, "share"), `pg/${v}/share`);
    const hash = rec.patch?.hash ?? null;
    builds.push({
      name: v,
      version: rec.version,
      from: prefix,
      sourceKey: rec.sourceKey,
      patch: rec.patch ? { hash: rec.patch.hash, files: rec.patch.files, version: hash ? patchVersionOf(hash) : null } : null,
      buildRecordSha256: sha256(readFileSync(join(prefix, "slicelab-build.json"))),
      configure: rec.configure,
      cc: rec.ccVersion,
    });
    writeFileSync(join(dst, "slicelab-build.json"), readFileSync(join(prefix, "slicelab-build.json")));
    files.push(`pg/${v}/slicelab-build.json`);
  }
  const libs = lddClosure(programs);
  const loader = libs.find((l) => basename(l).startsWith("ld-linux-x86-64.so"));
  if (!loader) throw new UserError(`ldd names no ld-linux-x86-64.so.2 for ${programs[0]}: the bundle needs the loader to run the builds on another C library`);
  mkdirSync(join(root, "pg", "sys"));
  for (const l of libs) {
    const name = basename(l).startsWith("ld-linux") ? "ld-linux-x86-64.so.2" : basename(l);
    copyFileSync(realpathSync(l), join(root, "pg", "sys", name));
    chmodSync(join(root, "pg", "sys", name), 0o755);
    files.push(`pg/sys/${name}`);
  }
  const glibc = /(\d+\.\d+)/.exec(execFileSync(join(root, "pg", "sys", "ld-linux-x86-64.so.2"), ["--version"], { encoding: "utf8" }).split("\n")[0] ?? "")?.[1] ?? "unknown";
  return { builds, systemLibs: libs.map((l) => basename(l)), glibc: `glibc ${glibc}`, files };
}

/** pg/NAME/bin/PROG: the loader runs libexec/PROG with the bundle's libraries; argv[0] stays bin/PROG. */
export function wrapper(prog: string): string {
  return `#!/bin/sh
d=$(cd "\${0%/*}" && pwd) || exit 127
exec "$d/../../sys/ld-linux-x86-64.so.2" --library-path "$d/../lib:$d/../../sys" --argv0 "$d/${prog}" "$d/../libexec/${prog}" "$@"
`;
}

/** Writes the PostgreSQL part of a bundle under ROOT: builds, plans, workloads. Returns the manifest's parts. */
export function writePgBundle(root: string, study: Study, o: { blocks?: number; params?: Record<string, string>; seed?: number }): {
  postgres: PgManifestPart;
  plans: { plan: BundlePlan; file: PgPlanFile; script: string }[];
  files: string[];
  memoryKiB: number;
  diskKiB: number;
  estimateRunS: number;
} {
  const protocol = loadProtocol(study.protocol as string);
  const refusal = pgBundleRefusal(study, protocol);
  if (refusal) throw new UserError(`study ${study.name}: not bundled: ${refusal}`);
  const known = new Set(protocol.expanded.flatMap((w) => Object.keys(w.params)));
  const params = Object.fromEntries(Object.entries({ ...Object.fromEntries(Object.entries(study.params ?? {}).map(([k, v]) => [k, String(v)])), ...(o.params ?? {}) }).filter(([k]) => known.has(k)));
  for (const k of Object.keys(o.params ?? {})) if (!known.has(k)) throw new UserError(`--param ${k}: protocol ${protocol.name} has no parameter "${k}" (it has ${[...known].sort().join(", ")})`);
  const variants: BuildVariant[] = ["baseline", "patched", ...(cachedBuild("diag") ? (["diag"] as const) : [])];
  const packed = packPgBuilds(root, variants);
  const blocks = o.blocks ?? study.design.runs;
  const warmup = Math.min(study.design.warmup, blocks - 1);
  const plans = pgBundlePlans(study, { blocks, warmup, seed: o.seed ?? study.design.seed ?? 1, glibc: packed.glibc });
  const groups = workloadsByCpus(protocol, params);
  mkdirSync(join(root, "plans"), { recursive: true });
  writeFileSync(join(root, "plans", "workloads.sh"), pgWorkloadsScript(groups));
  writeFileSync(join(root, "plans", "workloads.json"), `${JSON.stringify({ protocol: protocol.name, params, groups }, null, 2)}\n`);
  const out = plans.map((p) => ({ ...p, script: pgPlanScript(p.file) }));
  for (const p of out) {
    writeFileSync(join(root, "plans", `${p.plan.name}.sh`), p.script);
    writeFileSync(join(root, "plans", `${p.plan.name}.json`), `${JSON.stringify(p.file, null, 2)}\n`);
  }
  const w1 = groups[groups.length - 1]!.workloads;
  const duration = Math.max(...w1.map((w) => Number(w.params.duration ?? w.params.time ?? 0)));
  const sb = Math.max(...w1.map((w) => sizeMiB(w.settings.shared_buffers as string | undefined)));
  const scale = Math.max(...w1.map((w) => Number(w.params.scale ?? 1)));
  return {
    postgres: {
      protocol: { name: protocol.name, file: `protocols/${basename(protocol.file)}`, hash: protocol.hash },
      params,
      builds: packed.builds,
      glibc: packed.glibc,
      systemLibs: packed.systemLibs,
      maxCpus: PG_MAX_CPUS,
      port: PG_PORT,
      clusterUser: PG_USER,
    },
    plans: out,
    files: [...packed.files, "plans/workloads.sh", "plans/workloads.json", ...out.flatMap((p) => [`plans/${p.plan.name}.sh`, `plans/${p.plan.name}.json`])],
    memoryKiB: Math.ceil((sb * 1.2 + 512) * 1024),
    // Two clusters (baseline, patched) with the pgbench tables (about 16 MiB per scale unit with WAL), or the study's own figure.
    diskKiB: Math.max(study.requires?.diskMiB ?? 0, 2 * (scale * 16 + 200)) * 1024,
    estimateRunS: Math.ceil(duration + Math.min(study.overheadSecondsPerRun, 10 + duration / 4)),
  };
}
