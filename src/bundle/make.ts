/**
 * `slicelab bundle STUDY`: one self-contained tarball that runs a study on any x86-64 Linux with
 * nothing but sh (run.sh) — the static micro-benchmark and slice probe, the plan scripts made by
 * `guestMechanismScript` (the generator `mechanism run` uses in the VM, with its bundle options:
 * resumable, within a budget, mode switched only where debugfs allows), MANIFEST.json and
 * BUNDLE.SHA256SUMS. The bundle's studies are the micro-benchmark mechanism studies
 * (`"experiment": "mechanism-micro"`); the PostgreSQL studies are not bundled yet (the caller says so).
 * `withVm` adds vm/ (the kit's kernel, QEMU with its libraries and loader, a busybox root) and the
 * guest's plan vm-ext: src/bundle/vm.ts.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { buildMicro } from "../micro/driver.js";
import { compileCached, type CompiledProgram } from "../micro/compile.js";
import { defaultShape, guestMechanismScript, planRuns, type ExtLevel, type MicroShape, type PageLevel, type PreemptMode } from "../drivers/mechanism/index.js";
import { probeSource } from "../vm/probe.js";
import { kitInfo } from "../bench/provenance.js";
import { loadStudy, type Study } from "../study/study.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { utcStamp } from "../record/format.js";
import { BUNDLE_FORMAT, type BundleManifest, type BundlePlan, type PgBundleManifest, type PlanFile } from "./format.js";
import { runScript } from "./run-sh.js";
import { stageVm, vmPlan } from "./vm.js";
import { makePgBundle } from "./make-pg.js";

/** The tarball's size limit (issue 25: one file ≤ 64 MiB). */
export const BUNDLE_MAX_BYTES = 64 * 1024 * 1024;

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** The slice probe, linked statically (the bundle's machine may have another C library), once per source hash. */
export function buildStaticProbe(): Promise<CompiledProgram> {
  return compileCached(probeSource(), { dir: "bundle", name: "slice-probe-static", flags: ["-pthread"], requireStatic: "a bundle must run on another C library" });
}

export interface BundleOptions {
  study: string;
  /** The tarball to write (default: bundles/<study>-<stamp>.tar.gz under the work directory's parent, i.e. the clone). */
  out?: string;
  /** Blocks per plan (default: the study's design.runs). */
  blocks?: number;
  /** Micro-benchmark shape overrides (the study's params first). */
  shape?: Partial<MicroShape>;
  seed?: number;
  withVm?: boolean;
  /** `--param NAME=VALUE`: a PostgreSQL study's protocol parameters (src/bundle/make-pg.ts). */
  params?: Record<string, string>;
}

/** The micro study's shape and levels: its params (names as the mechanism-micro driver declares them), then overrides. */
export function bundleDesign(study: Study, o: Pick<BundleOptions, "blocks" | "shape" | "seed">): { shape: MicroShape; modes: PreemptMode[]; pages: PageLevel[]; extensions: ExtLevel[]; blocks: number; seed: number } {
  const p = (study.params ?? {}) as Record<string, unknown>;
  const num = (k: string) => (typeof p[k] === "number" ? (p[k] as number) : undefined);
  const shape = defaultShape({
    threads: num("threads"), hogs: num("hogs"), csNs: num("cs_ns"), durationS: num("duration"), faultEvery: num("fault_every"),
    regionMiB: num("region_mib"), jitterPct: num("jitter_pct"), logMinNs: num("log_min_ns"), innerLocks: num("inner_locks"),
    pinCpus: num("pin_cpus") ?? 1,
    ...o.shape,
  });
  const levels = (name: string) => study.factors.find((f) => f.name === name)?.levels;
  return {
    shape,
    modes: (levels("mode") ?? ["full", "lazy"]) as PreemptMode[],
    pages: (levels("pages") ?? ["4k", "4k-prefault", "hugetlb"]) as PageLevel[],
    extensions: (levels("extension") ?? ["off", "on"]) as ExtLevel[],
    blocks: o.blocks ?? study.design.runs,
    seed: o.seed ?? study.design.seed ?? 1,
  };
}

/** The four plans run.sh chooses from: mode switched or current × extension arms or off only. */
export function bundlePlans(d: ReturnType<typeof bundleDesign>): { plan: BundlePlan; file: PlanFile; script: string }[] {
  const out: { plan: BundlePlan; file: PlanFile; script: string }[] = [];
  // Without the extension the reference is the pre-7.0 kernel: its `none` mode is a level too (a 7.x kernel has none, refuses it).
  const variants: { name: string; modes: PreemptMode[]; extensions: ExtLevel[] }[] = [
    { name: "dyn-ext", modes: d.modes, extensions: d.extensions },
    { name: "dyn-noext", modes: [...new Set<PreemptMode>(["none", ...d.modes])], extensions: ["off"] },
    { name: "cur-ext", modes: ["current"], extensions: d.extensions },
    { name: "cur-noext", modes: ["current"], extensions: ["off"] },
  ];
  for (const v of variants) {
    const runs = planRuns({ blocks: d.blocks, modes: v.modes, pages: d.pages, extensions: v.extensions, seed: d.seed });
    const perBlock = v.modes.length * d.pages.length * v.extensions.length;
    out.push({
      plan: { name: v.name, modes: v.modes, pages: [...d.pages], extensions: v.extensions, blocks: d.blocks, runs: runs.length, perBlock },
      file: { name: v.name, runs, shape: d.shape },
      script: guestMechanismScript({ lhp: "bin/lhp", lhpFromEnv: true, runs, shape: d.shape, bufferKb: 8192, host: true, resume: true }),
    });
  }
  return out;
}

/** Writes the bundle; returns the tarball's path, its size and the manifest. */
export async function makeBundle(o: BundleOptions): Promise<{ path: string; bytes: number; manifest: BundleManifest | PgBundleManifest; name: string }> {
  const study = loadStudy(o.study);
  if (study.driver === "series") {
    if (o.withVm) throw new UserError(`study ${o.study}: --with-vm carries the micro-benchmark mechanism studies into a guest; a PostgreSQL bundle runs natively (make it without --with-vm)`);
    return makePgBundle(study, o);
  }
  if (study.driver !== "experiment" || study.experiment !== "mechanism-micro") {
    throw new UserError(`study ${o.study}: \`slicelab bundle\` makes bundles of the micro-benchmark mechanism studies ("experiment": "mechanism-micro"); ${study.name} is ${study.driver === "experiment" ? `the ${study.experiment ?? "?"} experiment` : `a ${study.driver} study`}, which is not bundled yet (PostgreSQL builds with their loader are not in bundles yet)`);
  }
  const d = bundleDesign(study, o);
  const micro = await buildMicro();
  if (!micro.static) throw new UserError(`${micro.path}: the micro-benchmark could not be linked statically (install libc6-dev): a bundle must run on another C library`);
  const probe = await buildStaticProbe();
  const plans = [...bundlePlans(d), ...(o.withVm ? [vmPlan(d)] : [])];
  const stamp = utcStamp();
  const name = `slicelab-${study.name}-${stamp}`;
  const stage = mkdtempSync(join(tmpdir(), "slicelab-bundle-"));
  try {
    const root = join(stage, name);
    mkdirSync(join(root, "bin"), { recursive: true });
    mkdirSync(join(root, "plans"));
    copyFileSync(micro.path, join(root, "bin", "lhp"));
    copyFileSync(probe.path, join(root, "bin", "slice-probe"));
    for (const f of ["lhp", "slice-probe"]) chmodSync(join(root, "bin", f), 0o755);
    const vm = o.withVm ? stageVm(root, d.shape) : undefined;
    for (const p of plans) {
      writeFileSync(join(root, "plans", `${p.plan.name}.sh`), p.script);
      writeFileSync(join(root, "plans", `${p.plan.name}.json`), `${JSON.stringify(p.file, null, 2)}\n`);
    }
    const hugePages = d.pages.includes("hugetlb") ? Math.ceil(d.shape.regionMiB / 2) + 8 : 0;
    const maxRuns = Math.max(...plans.map((p) => p.plan.runs));
    const idSource = plans.map((p) => p.script).join("\n") + micro.sourceSha256 + probe.sourceSha256 + (vm ? JSON.stringify(vm.vm) : "");
    const kit = kitInfo();
    const manifest: BundleManifest = {
      format: BUNDLE_FORMAT,
      id: "",
      study: study.name,
      title: study.title,
      made: { kitCommit: kit.commit ?? "unknown", dirty: kit.dirty, at: new Date().toISOString(), host: hostname() },
      micro: { sourceSha256: micro.sourceSha256, static: micro.static },
      probe: { sourceSha256: probe.sourceSha256, static: probe.static },
      shape: d.shape,
      seed: d.seed,
      plans: plans.map((p) => p.plan),
      hugePages,
      memoryKiB: (d.shape.regionMiB + hugePages * 2 + 256) * 1024,
      diskKiB: 2048 * maxRuns + 20 * 1024,
      estimateRunS: Math.ceil(d.shape.durationS * 2 + 3),
      files: [],
      ...(vm ? { vm: vm.vm } : {}),
    };
    manifest.id = sha256(idSource + runScript({ ...manifest, id: "0".repeat(16) })).slice(0, 16);
    writeFileSync(join(root, "run.sh"), runScript(manifest));
    chmodSync(join(root, "run.sh"), 0o755);
    const files = ["run.sh", "bin/lhp", "bin/slice-probe", ...plans.flatMap((p) => [`plans/${p.plan.name}.sh`, `plans/${p.plan.name}.json`]), ...(vm?.files ?? [])];
    manifest.files = [...files, "MANIFEST.json"];
    writeFileSync(join(root, "MANIFEST.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(root, "BUNDLE.SHA256SUMS"), manifest.files.map((f) => `${sha256(readFileSync(join(root, f)))}  ${f}`).join("\n") + "\n");
    const out = resolve(o.out ?? join(repoRoot(), "bundles", `${name}.tar.gz`));
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    execFileSync("tar", ["-C", stage, "--owner=0", "--group=0", "-czf", tmp, name]);
    const bytes = statSync(tmp).size;
    if (bytes > BUNDLE_MAX_BYTES) {
      rmSync(tmp);
      throw new UserError(`${basename(out)}: ${bytes} bytes, over the bundle limit of ${BUNDLE_MAX_BYTES}`);
    }
    renameSync(tmp, out);
    return { path: out, bytes, manifest, name };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
