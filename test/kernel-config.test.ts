// Config fragments merged and verified on the real Linux source tree (fetched
// into ~/.cache/slicelab/kernel by `slicelab kernel fetch` when missing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configureKernel, fragmentOverrides, fragmentPath, readFragments, verifyConfig } from "../src/kernel/configure.js";
import { conjuncts, evalKconfigExpr, findKconfigDefinitions, parseConfigFragment, readDotConfig } from "../src/kernel/kconfig.js";
import { ensureTree, hzFragments, KERNEL_HZ } from "../src/kernel/ensure.js";
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

test("the HZ fragments take over slice-ext's tick and nothing else; any other option asked twice is still an error", () => {
  assert.deepEqual([...fragmentOverrides("# slicelab-overrides: HZ_1000 CONFIG_HZ\n#slicelab-overrides:  X\nCONFIG_A=y\n")], ["HZ_1000", "HZ", "X"]);
  assert.equal(fragmentOverrides("# a comment naming slicelab-overrides: in the middle\n").size, 0);
  for (const hz of [100, 250]) {
    const { entries } = readFragments(hzFragments(hz).map(fragmentPath));
    const by = new Map(entries.map((e) => [e.name, e]));
    assert.equal(by.get("HZ")?.value, String(hz));
    assert.equal(by.get(`HZ_${hz}`)?.value, "y");
    assert.equal(by.get("HZ_1000")?.value, "n", "the 1000 Hz choice is switched off, not left to the choice's order");
    assert.ok(by.get("HZ")!.file.endsWith(`hz${hz}.config`));
    assert.equal(by.get("RSEQ_SLICE_EXTENSION")?.value, "y", "the rest of slice-ext stays");
  }
  assert.deepEqual(hzFragments(1000), ["slice-ext", "vm"]);
  assert.deepEqual([...KERNEL_HZ], [100, 250, 1000]);
  assert.throws(() => hzFragments(300), /HZ 300: expected one of 100, 250, 1000/);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-hzfrag-"));
  try {
    // An override names only what it may replace: the same fragment asking RSEQ=n is refused.
    const bad = join(dir, "bad.config");
    writeFileSync(bad, "# slicelab-overrides: HZ_1000 HZ\n# CONFIG_HZ_1000 is not set\nCONFIG_HZ=100\n# CONFIG_RSEQ is not set\n");
    assert.throws(() => readFragments([fragmentPath("slice-ext"), bad]), (e: unknown) => e instanceof UserError && /bad\.config:4: CONFIG_RSEQ=n conflicts with .*slice-ext\.config:\d+: CONFIG_RSEQ=y/.test(e.message));
    // Without the line, the tick itself conflicts as before.
    const plain = join(dir, "plain.config");
    writeFileSync(plain, "CONFIG_HZ=100\n");
    assert.throws(() => readFragments([fragmentPath("slice-ext"), plain]), /plain\.config:1: CONFIG_HZ=100 conflicts with/);
    // An override applies to earlier fragments only, not to a conflict inside itself.
    const self = join(dir, "self.config");
    writeFileSync(self, "# slicelab-overrides: HZ\nCONFIG_HZ=100\nCONFIG_HZ=250\n");
    assert.throws(() => readFragments([self]), /self\.config:3: CONFIG_HZ=250 conflicts with .*self\.config:2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("on the real tree, slice-ext + vm + hz100 resolves to HZ 100 with everything else slice-ext + vm asks for", async () => {
  const tree = await ensureTree();
  const work = mkdtempSync(join(tmpdir(), "slicelab-kcfg-hz-"));
  try {
    const r = await configureKernel({ tree, fragments: hzFragments(100).map(fragmentPath), buildDir: join(work, "build") });
    const dot = readDotConfig(readFileSync(join(work, "build", ".config"), "utf8"));
    assert.equal(dot.get("HZ"), "100");
    assert.equal(dot.get("HZ_100"), "y");
    assert.equal(dot.get("HZ_1000"), undefined);
    assert.equal(dot.get("RSEQ_SLICE_EXTENSION"), "y");
    assert.equal(dot.get("9P_FS"), "y");
    assert.ok(r.fragments.some((f) => f.path.endsWith("hz100.config")));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
