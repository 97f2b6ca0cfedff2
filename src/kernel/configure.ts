/**
 * `slicelab kernel configure`: base config (x86_64_defconfig + the kernel's own
 * kvm_guest.config) + our fragments, merged with scripts/kconfig/merge_config.sh,
 * resolved with olddefconfig, then checked: every option a fragment asks for
 * must be in the result, or configure fails naming the option and the Kconfig
 * condition that is not met.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { execa } from "execa";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import { repoRoot } from "../util/paths.js";
import {
  configValue,
  conjuncts,
  evalKconfigExpr,
  exprSymbols,
  findKconfigDefinitions,
  parseConfigFragment,
  readDotConfig,
  type ConfigEntry,
} from "./kconfig.js";
import { kernelCacheDir, treeVersion, type KernelTree } from "./tree.js";

/** The kit's fragments, by short name (kernel-patches/linux/<name>.config). */
export function fragmentPath(name: string): string {
  if (name.includes("/") || name.endsWith(".config")) return resolve(name);
  return join(repoRoot(), "kernel-patches", "linux", `${name}.config`);
}

/** Fragments `configure` uses when none are named: what slicelab's VM runs need. */
export const DEFAULT_FRAGMENTS = ["slice-ext", "vm"];

/** The build directory for a tree and a set of fragments (names joined with "+"). */
export function buildDirFor(tree: KernelTree, fragments: string[], base = "small"): string {
  const label = (base === "small" ? "" : `${basename(base).replace(/\.config$/, "")}~`) + (fragments.map((f) => basename(f).replace(/\.config$/, "")).join("+") || "base");
  const ver = tree.debianVersion ?? tree.version;
  let src = tree.origin === "debian" ? ver : `${ver}-${basename(tree.dir)}`;
  if (tree.patchSeriesSha256) src += `+${basename(tree.patchSeries ?? "series")}-${tree.patchSeriesSha256.slice(0, 12)}`;
  return join(kernelCacheDir(), "build", src, label);
}

/** Where `configure` records what it did (fragment hashes, config hash) in a build directory. */
export function configureRecordPath(buildDir: string): string {
  return join(buildDir, "slicelab-configure.json");
}

/**
 * True when the build directory was configured from exactly these fragment
 * files (same paths and contents) and base, and its .config is unchanged since:
 * configuring again would produce the same .config.
 */
export function configureIsCurrent(buildDir: string, fragments: string[], baseConfig = "small"): boolean {
  const rec = configureRecordPath(buildDir);
  const cfg = join(buildDir, ".config");
  if (!existsSync(rec) || !existsSync(cfg)) return false;
  const r = JSON.parse(readFileSync(rec, "utf8")) as ConfigureResult;
  const paths = [...(baseConfig === "small" ? [fragmentPath("base")] : []), ...fragments];
  if (baseConfig !== "small" && baseConfig !== "defconfig") return false;
  if (r.fragments.length !== paths.length) return false;
  for (const [i, p] of paths.entries()) {
    // Same file name and content (a fresh clone elsewhere has other absolute paths).
    if (basename(r.fragments[i]!.path) !== basename(p) || !existsSync(p) || r.fragments[i]!.sha256 !== sha256(readFileSync(p, "utf8"))) return false;
  }
  return r.configSha256 === sha256(readFileSync(cfg, "utf8"));
}

/** Why a requested option is not in the final .config. */
export interface MissingOption {
  entry: ConfigEntry;
  found: string;
  /** One human sentence per Kconfig definition: the conditions that are not met. */
  reasons: string[];
}

export interface ConfigureResult {
  tree: string;
  version: string;
  buildDir: string;
  base: string;
  fragments: { path: string; sha256: string }[];
  requested: number;
  configSha256: string;
  /** Whether the build directory's .config changed. */
  changed: boolean;
}

function sha256(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Checks a resolved .config against requested entries; returns those that did not survive, explained. */
export function verifyConfig(treeDir: string, dotConfig: string, requested: ConfigEntry[]): MissingOption[] {
  const config = readDotConfig(dotConfig);
  const missing: MissingOption[] = [];
  for (const e of requested) {
    const found = configValue(config, e.name);
    if (found === e.value) continue;
    missing.push({ entry: e, found, reasons: explainMissing(treeDir, config, e) });
  }
  return missing;
}

/**
 * Options our fragments ask for that older kernels do not have: the mainline
 * release that added each one and what to use instead on an older tree.
 */
export const OPTION_INTRODUCED: Readonly<Record<string, { version: string; what: string; instead: string }>> = {
  RSEQ_SLICE_EXTENSION: {
    version: "7.0",
    what: "the rseq time-slice extension",
    instead: "build a 7.x tree for it; a 6.x reference kernel takes the preempt-ref fragment instead of slice-ext",
  },
  PREEMPT_LAZY: {
    version: "6.13",
    what: "the lazy preemption model",
    instead: "on older trees boot with preempt=none|voluntary|full (PREEMPT_DYNAMIC)",
  },
};

/** The sentence for an option that no Kconfig file of the tree defines. */
function undefinedOptionReason(treeDir: string, name: string): string {
  let version: string | undefined;
  try {
    version = treeVersion(treeDir);
  } catch {
    version = undefined;
  }
  const head = `CONFIG_${name} is not defined by any Kconfig file in ${treeDir}${version ? ` (Linux ${version})` : ""}`;
  const known = OPTION_INTRODUCED[name];
  if (known && version && compareVersions(version, known.version) < 0) {
    return `${head}: ${known.what} was added in Linux ${known.version}; ${known.instead}`;
  }
  return `${head} (renamed or removed in this version, or added after it?)`;
}

/** Compares dotted kernel versions numerically by their leading numbers ("6.1.176" < "7.0"). */
export function compareVersions(a: string, b: string): number {
  const nums = (v: string): number[] => (/^\d+(\.\d+)*/.exec(v)?.[0] ?? "0").split(".").map(Number);
  const [x, y] = [nums(a), nums(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Reads Kconfig to say why `e` did not get its value. */
export function explainMissing(treeDir: string, config: Map<string, string>, e: ConfigEntry): string[] {
  const defs = findKconfigDefinitions(treeDir, e.name);
  if (defs.length === 0) return [undefinedOptionReason(treeDir, e.name)];
  const need = e.value === "m" ? 1 : e.value === "n" ? 0 : 2;
  const reasons: string[] = [];
  for (const d of defs) {
    const where = `${d.file}:${d.line}`;
    if (need === 0) {
      reasons.push(`${where}: CONFIG_${e.name} stays set: it is selected by another option or defaulted without a prompt`);
      continue;
    }
    const conds: { kind: string; expr: string }[] = [
      ...d.enclosing.map((x) => ({ kind: "inside `if`/menu", expr: x })),
      ...d.dependsOn.map((x) => ({ kind: "depends on", expr: x })),
    ];
    if (d.promptIf) conds.push({ kind: "prompt visible if", expr: d.promptIf });
    const unmet: string[] = [];
    for (const c of conds) {
      for (const term of conjuncts(c.expr)) {
        let v: number;
        try {
          v = evalKconfigExpr(term, config);
        } catch {
          continue;
        }
        if (v < need) {
          const vals = exprSymbols(term).map((s) => `${s}=${configValue(config, s)}`).join(", ");
          unmet.push(`${c.kind} ${term} (${vals || "constant"})`);
        }
      }
    }
    if (unmet.length > 0) reasons.push(`${where}: unmet: ${unmet.join("; ")}`);
    else if (d.promptIf === undefined) reasons.push(`${where}: CONFIG_${e.name} has no prompt: only another option's \`select\` can set it`);
    else if (d.choice) reasons.push(`${where}: CONFIG_${e.name} is one member of the choice "${d.choice}" and another member won`);
    else reasons.push(`${where}: its conditions are met (${[...d.dependsOn, ...d.enclosing].join(" && ") || "none"}); a later fragment or a \`select\` overrides it`);
  }
  return reasons;
}

/** Formats missing options as one error message. */
export function missingMessage(missing: MissingOption[]): string {
  const lines = missing.map((m) => {
    const want = m.entry.value === "n" ? "# CONFIG_" + m.entry.name + " is not set" : `CONFIG_${m.entry.name}=${m.entry.value}`;
    const got = m.found === "n" ? "not set" : m.found;
    return `${m.entry.file}:${m.entry.line}: expected ${want} in the resolved .config, found ${got}\n    ${m.reasons.join("\n    ")}`;
  });
  return `${missing.length} requested option(s) did not survive olddefconfig:\n${lines.join("\n")}`;
}

/**
 * The options a fragment may take over from earlier fragments: its `# slicelab-overrides: NAME …`
 * lines (names without CONFIG_). The HZ fragments use it to replace slice-ext's tick.
 */
export function fragmentOverrides(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.split("\n")) {
    const m = /^#\s*slicelab-overrides:\s*(.*)$/.exec(raw.trim());
    if (!m) continue;
    for (const n of m[1]!.split(/\s+/).filter(Boolean)) out.add(n.replace(/^CONFIG_/, ""));
  }
  return out;
}

/**
 * Reads and checks the fragments: unknown files and one option asked with two values are errors,
 * unless the later fragment names the option in a `# slicelab-overrides:` line (then its value wins,
 * as in merge_config.sh, and is the one checked after olddefconfig).
 */
export function readFragments(paths: string[]): { entries: ConfigEntry[]; files: { path: string; sha256: string }[] } {
  const byName = new Map<string, ConfigEntry>();
  const files: { path: string; sha256: string }[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new UserError(`config fragment ${p}: no such file`);
    const text = readFileSync(p, "utf8");
    files.push({ path: p, sha256: sha256(text) });
    const overrides = fragmentOverrides(text);
    for (const e of parseConfigFragment(text, p)) {
      const prev = byName.get(e.name);
      if (prev && prev.value !== e.value && prev.file !== p && overrides.has(e.name)) {
        byName.delete(e.name);
      } else if (prev && prev.value !== e.value) {
        throw new UserError(`${e.file}:${e.line}: CONFIG_${e.name}=${e.value} conflicts with ${prev.file}:${prev.line}: CONFIG_${e.name}=${prev.value}`);
      }
      byName.set(e.name, e);
    }
  }
  return { entries: [...byName.values()], files };
}

async function make(treeDir: string, args: string[], what: string): Promise<string> {
  const r = await execa("make", ["-s", ...args], { cwd: treeDir, reject: false, all: true, env: { KCONFIG_NOSILENTUPDATE: "" } });
  if (r.exitCode !== 0) throw new UserError(`make ${args.join(" ")} (${what}) failed in ${treeDir}:\n${(r.all ?? "").slice(-3000)}`);
  return r.all ?? "";
}

export interface ConfigureOptions {
  tree: KernelTree;
  /** Fragment paths (see fragmentPath). */
  fragments: string[];
  /**
   * "small" (default): allnoconfig + kernel-patches/linux/base.config;
   * "defconfig": x86_64_defconfig + kernel/configs/kvm_guest.config; or a full config file.
   */
  baseConfig?: string;
  buildDir?: string;
}

/**
 * Configures a build directory. The merge runs in a scratch directory; the
 * build directory's .config is replaced only when every requested option
 * survived (and only if it changed, so an unchanged config rebuilds nothing).
 */
export async function configureKernel(opts: ConfigureOptions): Promise<ConfigureResult> {
  const treeDir = opts.tree.dir;
  const { entries, files } = readFragments(opts.fragments);
  const buildDir = opts.buildDir ?? buildDirFor(opts.tree, opts.fragments, opts.baseConfig);
  const scratch = `${buildDir}.configure-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    const merge = join(treeDir, "scripts/kconfig/merge_config.sh");
    if (!existsSync(merge)) throw new UserError(`${merge}: missing: expected a Linux source tree with scripts/kconfig/merge_config.sh`);
    let base: string;
    const extra: string[] = [];
    const baseKind = opts.baseConfig ?? "small";
    if (baseKind === "small") {
      // allnoconfig first, then the merge: options that allnoconfig leaves at
      // their hidden default (e.g. FUTEX while EXPERT is off) keep it.
      await make(treeDir, [`O=${scratch}`, "allnoconfig"], "base config");
      extra.push(fragmentPath("base"));
      base = "allnoconfig + kernel-patches/linux/base.config";
    } else if (baseKind === "defconfig") {
      await make(treeDir, [`O=${scratch}`, "x86_64_defconfig"], "base config");
      const kvm = join(treeDir, "kernel/configs/kvm_guest.config");
      if (existsSync(kvm)) extra.push(kvm);
      base = existsSync(kvm) ? "x86_64_defconfig + kernel/configs/kvm_guest.config" : "x86_64_defconfig";
    } else {
      if (!existsSync(baseKind)) throw new UserError(`--base ${baseKind}: expected small, defconfig or a config file, found no such file`);
      writeFileAtomic(join(scratch, ".config"), readFileSync(baseKind));
      base = resolve(baseKind);
    }
    // Options the base file asks for are checked like the fragments'.
    for (const p of extra.filter((f) => f.startsWith(join(repoRoot(), "kernel-patches")))) {
      const b = readFragments([p]);
      files.unshift(...b.files);
      for (const e of b.entries) if (!entries.some((x) => x.name === e.name)) entries.push(e);
    }
    const r = await execa("bash", [merge, "-m", "-O", scratch, join(scratch, ".config"), ...extra, ...opts.fragments], {
      cwd: treeDir,
      reject: false,
      all: true,
    });
    if (r.exitCode !== 0) throw new UserError(`merge_config.sh failed:\n${(r.all ?? "").slice(-3000)}`);
    await make(treeDir, [`O=${scratch}`, "olddefconfig"], "olddefconfig");
    const dotConfig = readFileSync(join(scratch, ".config"), "utf8");
    const missing = verifyConfig(treeDir, dotConfig, entries);
    if (missing.length > 0) throw new UserError(missingMessage(missing));
    mkdirSync(buildDir, { recursive: true });
    const target = join(buildDir, ".config");
    const old = existsSync(target) ? readFileSync(target, "utf8") : undefined;
    const changed = old !== dotConfig;
    if (changed) renameSync(join(scratch, ".config"), target);
    const result: ConfigureResult = {
      tree: treeDir,
      version: opts.tree.version,
      buildDir,
      base,
      fragments: files,
      requested: entries.length,
      configSha256: sha256(dotConfig),
      changed,
    };
    writeFileAtomic(configureRecordPath(buildDir), `${JSON.stringify({ ...result, changed: undefined }, null, 2)}\n`);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
