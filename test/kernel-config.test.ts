// Config fragments merged and verified on the real Linux source tree (fetched
// into ~/.cache/slicelab/kernel by `slicelab kernel fetch` when missing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configureKernel, fragmentPath, verifyConfig } from "../src/kernel/configure.js";
import { conjuncts, evalKconfigExpr, findKconfigDefinitions, parseConfigFragment, readDotConfig } from "../src/kernel/kconfig.js";
import { ensureTree } from "../src/kernel/ensure.js";
import { treeVersion } from "../src/kernel/tree.js";
import { ParseError, UserError } from "../src/util/errors.js";

test("our fragments parse, and a malformed line is named by file and line", () => {
  const slice = parseConfigFragment(readFileSync(fragmentPath("slice-ext"), "utf8"), "slice-ext.config");
  const names = slice.map((e) => e.name);
  for (const n of ["RSEQ_SLICE_EXTENSION", "RSEQ_STATS", "EXPERT", "DEBUG_FS", "PREEMPT_DYNAMIC"]) assert.ok(names.includes(n), n);
  const vm = parseConfigFragment(readFileSync(fragmentPath("vm"), "utf8"), "vm.config");
  assert.ok(vm.some((e) => e.name === "9P_FS" && e.value === "y"));
  const lock = parseConfigFragment(readFileSync(fragmentPath("lockstat"), "utf8"), "lockstat.config");
  assert.deepEqual(lock.map((e) => e.name), ["DEBUG_KERNEL", "LOCK_STAT"]);
  assert.throws(
    () => parseConfigFragment("CONFIG_A=y\nCONFIG_B y\n", "x.config"),
    (e: unknown) => e instanceof ParseError && e.message === 'x.config:2: expected CONFIG_NAME=value or `# CONFIG_NAME is not set`, found "CONFIG_B y"',
  );
  assert.deepEqual(parseConfigFragment("# CONFIG_X is not set\n", "f")[0], { name: "X", value: "n", file: "f", line: 1 });
});

test("Kconfig expressions evaluate as tristates against a .config", () => {
  const cfg = readDotConfig("CONFIG_A=y\nCONFIG_M=m\nCONFIG_HZ=1000\n# CONFIG_N is not set\n");
  assert.equal(evalKconfigExpr("A && M", cfg), 1);
  assert.equal(evalKconfigExpr("A && !N", cfg), 2);
  assert.equal(evalKconfigExpr("N || (A && !M)", cfg), 1);
  assert.equal(evalKconfigExpr("HZ = 1000", cfg), 2);
  assert.equal(evalKconfigExpr("HZ != 1000", cfg), 0);
  assert.equal(evalKconfigExpr("UNDEFINED", cfg), 0);
  assert.deepEqual(conjuncts("A && (B || C) && !D"), ["A", "(B || C)", "!D"]);
});

test("fragments merge on the real tree: every requested option survives; misses are explained from Kconfig", async () => {
  const tree = await ensureTree();
  assert.match(treeVersion(tree.dir), /^[7-9]\.\d+\.\d+/);
  const work = mkdtempSync(join(tmpdir(), "slicelab-kcfg-"));
  try {
    const buildDir = join(work, "build");
    const r = await configureKernel({ tree, fragments: ["slice-ext", "vm", "lockstat"].map(fragmentPath), buildDir });
    assert.equal(r.changed, true);
    const dot = readFileSync(join(buildDir, ".config"), "utf8");
    assert.match(dot, /^CONFIG_RSEQ_SLICE_EXTENSION=y$/m);
    assert.match(dot, /^CONFIG_RSEQ_STATS=y$/m);
    assert.match(dot, /^CONFIG_LOCK_STAT=y$/m);
    assert.match(dot, /^CONFIG_9P_FS=y$/m);
    assert.equal(r.requested, new Set(r.fragments.flatMap((f) => parseConfigFragment(readFileSync(f.path, "utf8"), f.path).map((e) => e.name))).size);

    // On that same resolved config, ask for options it cannot have and read the explanations.
    const asked = parseConfigFragment(
      ["CONFIG_ENABLE_DEFAULT_TRACERS=y", "CONFIG_PREEMPT_VOLUNTARY=y", "CONFIG_NO_SUCH_OPTION_SLICELAB=y", "CONFIG_RSEQ=y"].join("\n"),
      "asked.config",
    );
    const missing = verifyConfig(tree.dir, dot, asked);
    assert.deepEqual(missing.map((m) => m.entry.name), ["ENABLE_DEFAULT_TRACERS", "PREEMPT_VOLUNTARY", "NO_SUCH_OPTION_SLICELAB"]);
    assert.match(missing[0]!.reasons.join(" "), /kernel\/trace\/Kconfig:\d+: unmet: depends on !GENERIC_TRACER \(GENERIC_TRACER=y\)/);
    assert.match(missing[1]!.reasons.join(" "), /kernel\/Kconfig\.preempt:\d+: unmet: depends on !ARCH_HAS_PREEMPT_LAZY \(ARCH_HAS_PREEMPT_LAZY=y\)/);
    assert.match(missing[2]!.reasons.join(" "), /not defined by any Kconfig file/);
    const defs = findKconfigDefinitions(tree.dir, "RSEQ_SLICE_EXTENSION");
    assert.equal(defs.length, 1);
    assert.ok(defs[0]!.dependsOn.join(" ").includes("RSEQ"));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("configure fails naming the option and its unmet dependency, and leaves the build directory's .config alone", async () => {
  const tree = await ensureTree();
  const work = mkdtempSync(join(tmpdir(), "slicelab-kcfg-"));
  try {
    const buildDir = join(work, "build");
    mkdirSync(buildDir);
    writeFileSync(join(buildDir, ".config"), "# previous config\n");
    const frag = join(work, "needs-expert.config");
    // RSEQ_STATS is only visible with EXPERT, which this fragment does not set.
    writeFileSync(frag, "CONFIG_DEBUG_FS=y\nCONFIG_RSEQ_STATS=y\n");
    await assert.rejects(
      configureKernel({ tree, fragments: [frag], buildDir }),
      (e: unknown) =>
        e instanceof UserError &&
        e.message.includes(`${frag}:2: expected CONFIG_RSEQ_STATS=y in the resolved .config, found not set`) &&
        /init\/Kconfig:\d+: unmet: prompt visible if EXPERT \(EXPERT=n\)/.test(e.message),
    );
    assert.equal(readFileSync(join(buildDir, ".config"), "utf8"), "# previous config\n");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
