/**
 * The fresh-machine rules (issue 12): builds happen in `slicelab prepare`, never in a test or a
 * notebook cell (the build guard); a notebook's freshness compares what it claims, not the facts of
 * the machine that ran it; `prepare` lists its steps and reports progress.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertBuildAllowed, buildRefusal, NO_BUILD_ENV } from "../src/util/build-guard.js";
import { buildKernel } from "../src/kernel/build.js";
import { buildPostgres } from "../src/postgres/build.js";
import type { PgSource } from "../src/postgres/source.js";
import type { KernelTree } from "../src/kernel/tree.js";
import { UserError } from "../src/util/errors.js";
import { comparableOutputs, isMachineFact, notebookOutputsDiffer } from "../src/report/freshness.js";
import { machineFactsHtml, htmlTable } from "../src/report/notebook.js";
import { executeNotebook, NotebookError } from "../src/report/notebooks.js";
import { makeProgress, parseTarget, prepareSteps, unbuildablePath } from "../src/prepare/index.js";
import { recordedKernelBuilds } from "../src/kernel/recorded.js";
import { repoRoot, workDir } from "../src/util/paths.js";

const withGuard = async (fn: () => Promise<unknown>) => {
  const before = process.env[NO_BUILD_ENV];
  process.env[NO_BUILD_ENV] = "a test of the guard";
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[NO_BUILD_ENV];
    else process.env[NO_BUILD_ENV] = before;
  }
};

test("build guard: unset, empty or 0 allows; any other value refuses, naming what and where builds belong", () => {
  assert.equal(buildRefusal({}), undefined);
  assert.equal(buildRefusal({ [NO_BUILD_ENV]: "" }), undefined);
  assert.equal(buildRefusal({ [NO_BUILD_ENV]: "0" }), undefined);
  assert.equal(buildRefusal({ [NO_BUILD_ENV]: "a notebook cell" }), "a notebook cell");
  assert.doesNotThrow(() => assertBuildAllowed("x", {}));
  assert.throws(() => assertBuildAllowed("the kernel in /b", { [NO_BUILD_ENV]: "a notebook cell" }), (e: unknown) => {
    assert.ok(e instanceof UserError);
    assert.match(e.message, /^refusing to build the kernel in \/b here \(SLICELAB_NO_BUILD: a notebook cell\): builds belong to `slicelab prepare test`/);
    return true;
  });
});

test("build guard: buildKernel and buildPostgres refuse before touching anything", async () => {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-guard-"));
  try {
    const buildDir = join(dir, "build");
    mkdirSync(buildDir);
    writeFileSync(join(buildDir, ".config"), "CONFIG_64BIT=y\n");
    const tree: KernelTree = { dir: join(dir, "linux"), version: "7.2.13", origin: "tarball" } as KernelTree;
    await withGuard(() => assert.rejects(buildKernel({ tree, buildDir, ccache: false }), /refusing to build the kernel in .*SLICELAB_NO_BUILD: a test of the guard/));
    assert.equal(existsSync(join(buildDir, "slicelab-build.lock")), false, "no lock taken, no make started");
    const src: PgSource = { version: "18.99", major: "18", dir: join(dir, "pgsrc"), key: "guard-test-18.99", origin: { kind: "directory", path: join(dir, "pgsrc") } } as unknown as PgSource;
    await withGuard(() => assert.rejects(buildPostgres(src, "baseline"), /refusing to build PostgreSQL 18\.99 baseline in /));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a notebook cell that would build is refused (the notebook environment carries the guard)", { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(workDir(), "test-notebook-guard-"));
  try {
    const path = join(dir, "builds.ipynb");
    const lib = join(repoRoot(), "dist", "src");
    const cell = (id: string, source: string) => ({ cell_type: "code", id, metadata: {}, execution_count: null, outputs: [], source });
    writeFileSync(
      path,
      JSON.stringify({
        cells: [
          cell("a", `import { buildPostgres } from "${lib}/postgres/build.js";`),
          cell("b", `await buildPostgres({ version: "18.99", major: "18", dir: "/nonexistent", key: "guard-nb-18.99", origin: { kind: "directory", path: "/nonexistent" } } as any, "baseline");`),
        ],
        metadata: { kernelspec: { display_name: "TypeScript", language: "typescript", name: "tslab" } },
        nbformat: 4,
        nbformat_minor: 5,
      }),
    );
    await assert.rejects(executeNotebook(path, { out: join(dir, "out.ipynb") }), (err: unknown) => {
      assert.ok(err instanceof NotebookError, String(err));
      assert.equal(err.cell, 1);
      assert.match(err.message, /refusing to build PostgreSQL 18\.99 baseline/);
      assert.match(err.message, /a notebook cell/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const out = (html: string) => ({ output_type: "display_data", data: { "text/html": [html] }, metadata: {} });

test("machine facts: only machineFacts' own element counts, and only its place is compared", () => {
  const m1 = out(machineFactsHtml("The kernel image in this machine's cache", [["bzImage sha256", "aaaa"], ["build time", "12.6 min"]]));
  const m2 = out(machineFactsHtml("The kernel image in this machine's cache", [["bzImage sha256", "bbbb"], ["build time", "0.7 min"]]));
  assert.ok(isMachineFact(m1));
  assert.deepEqual(comparableOutputs([m1]), comparableOutputs([m2]));
  // A claim table, a table that merely mentions the class, or an output with a second MIME type is no machine fact.
  assert.equal(isMachineFact(out(htmlTable(["a"], [["1"]]))), false);
  assert.equal(isMachineFact(out(`<p>see</p><div class="sl-machine">x</div>`)), false);
  assert.equal(isMachineFact({ output_type: "display_data", data: { "text/html": machineFactsHtml("c", []), "text/plain": "x" } }), false);
  assert.equal(isMachineFact({ output_type: "execute_result", data: { "text/html": machineFactsHtml("c", []) } }), false);
});

/** The committed notebook 02 as another machine would leave it: every machine fact has other values. */
function asIfRunElsewhere(nb: { cells: { outputs?: { data?: Record<string, unknown> }[] }[] }): number {
  let changed = 0;
  for (const c of nb.cells) {
    for (const o of c.outputs ?? []) {
      if (isMachineFact(o as never)) {
        o.data!["text/html"] = [machineFactsHtml("elsewhere", [["bzImage sha256", "0123456789abcdef…"], ["build time", "21.3 min with -j2 on 2 CPUs"], ["tree", "/tmp/other cache/kernel/src/linux"]])];
        changed++;
      }
    }
  }
  return changed;
}

test("notebook 02 executed on another machine (other build hash, times, paths) still counts as fresh; a changed claim does not", () => {
  const committed = join(repoRoot(), "notebooks", "02-kernel.ipynb");
  const nb = JSON.parse(readFileSync(committed, "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "slicelab-fresh-"));
  try {
    const changed = asIfRunElsewhere(nb);
    assert.ok(changed >= 2, `notebook 02 shows its tree and its image as machine facts (found ${changed})`);
    const other = join(dir, "other.ipynb");
    writeFileSync(other, JSON.stringify(nb));
    assert.equal(notebookOutputsDiffer(committed, other), null);
    // The recorded builds' table is a claim: change one figure in it and the notebook is stale.
    const i = nb.cells.findIndex((c: { source: string[] }) => c.source.join("").includes("recordedKernelBuilds().map"));
    assert.ok(i > 0);
    const o = nb.cells[i].outputs.find((x: { data?: Record<string, unknown> }) => !isMachineFact(x as never) && x.data?.["text/html"]);
    o.data["text/html"] = [String(o.data["text/html"].join("")).replace(/<td>cold<\/td><td>[\d.]+<\/td>/, "<td>cold</td><td>99.9</td>")];
    writeFileSync(other, JSON.stringify(nb));
    assert.equal(notebookOutputsDiffer(committed, other), `cell ${i}: outputs differ`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("recorded kernel builds are read from data/runs/kernel-build/20261130T024149Z, with a cold and a warm build", () => {
  const b = recordedKernelBuilds();
  assert.deepEqual(b.map((x) => x.kind).sort(), ["cold", "warm"]);
  const cold = b.find((x) => x.kind === "cold")!;
  // The cold build compiled (almost) everything, the warm one (almost) nothing.
  assert.ok(cold.ccacheMisses > 1000 && cold.ccacheHits < 100, JSON.stringify(cold));
  const warm = b.find((x) => x.kind === "warm")!;
  assert.ok(warm.ccacheHits > 1000 && warm.ccacheMisses < 100, JSON.stringify(warm));
  assert.ok(cold.seconds > warm.seconds * 5);
  const dir = mkdtempSync(join(tmpdir(), "slicelab-kb-"));
  try {
    writeFileSync(join(dir, "x.json"), "{ not json");
    assert.throws(() => recordedKernelBuilds(dir), /x\.json: expected a kernel build benchmark record \(JSON\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("prepare: the steps of each target, and a clear error for any other", () => {
  const t = prepareSteps("test");
  assert.ok(t.includes("kernel (slice-ext + vm)") && t.includes("PostgreSQL 18 patched") && t.includes("PostgreSQL 18 baseline"));
  // 15 is built as 18 is (test/postgres-build-15.test.ts uses it)
  assert.ok(t.includes("PostgreSQL 15 patched"));
  assert.ok(!t.some((s) => s.startsWith("tracepoint kernel")));
  const e = prepareSteps("e2e");
  assert.deepEqual(e.filter((s) => !t.includes(s)), ["tracepoint kernel (series slicelab, slice-ext + vm)", "rseq fix kernel (series rseq-slice-stale-work, slice-ext + vm)", "PostgreSQL 18 make-check tree (postgres check --vm)"]);
  // the HZ sweep's kernels are in neither test nor e2e (CI's cold budget), only in `prepare hz`
  const hz = prepareSteps("hz");
  assert.deepEqual(hz, ["kernel (slice-ext + vm)", "kernel at HZ 100 (slice-ext + vm + hz100)", "kernel at HZ 250 (slice-ext + vm + hz250)"]);
  assert.ok(![...t, ...e].some((s) => s.startsWith("kernel at HZ")));
  assert.throws(() => parseTarget("all"), /slicelab prepare: expected test, e2e or hz, found "all"/);
  assert.throws(() => parseTarget(undefined), /found nothing/);
});

test("prepare: make's output turns into a progress line at most once a minute, counting objects", () => {
  let now = 0;
  const lines: string[] = [];
  const p = makeProgress("kernel", (s) => lines.push(s), () => now);
  for (let i = 0; i < 50; i++) {
    now += 2_000;
    p(i % 2 === 0 ? `  CC      kernel/f${i}.o` : "  GEN     something");
  }
  assert.deepEqual(lines, ["kernel: 15 objects so far, 60 s"]);
});

test("prepare: a cache or clone path with a space or a colon is refused up front, with the way out", () => {
  assert.equal(unbuildablePath("the cache", "/var/tmp/slicelab-cache", "x"), null);
  assert.match(unbuildablePath("the cache", "/tmp/my cache", "set SLICELAB_CACHE to a directory without one")!, /^the cache "\/tmp\/my cache" contains a space or a colon, .*: set SLICELAB_CACHE/);
  assert.notEqual(unbuildablePath("the clone", "/home/a:b/slicelab", "x"), null);
  const r = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "prepare", "test"], { encoding: "utf8", env: { ...process.env, SLICELAB_CACHE: join(tmpdir(), "slicelab cache with spaces") } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /slicelab prepare: the cache ".*slicelab cache with spaces" contains a space or a colon/);
  assert.equal(existsSync(join(tmpdir(), "slicelab cache with spaces")), false, "refused before anything was made");
});
