import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { buildPublishedFiles, PUBLISHED_DIR } from "../src/published/build.js";
import {
  PUBLISHED_SOURCES,
  fact,
  loadLahr2001,
  loadLu2023,
  loadProvenance,
  loadRostedt2023,
  loadSangappa2024,
  rostedtTps,
} from "../src/published/index.js";
import { ParseError, UserError } from "../src/util/errors.js";
import { findSeed, loadVerbatimRecord, makeVerbatimRecord, seedProblems, verbatimProblems } from "../src/published/verbatim.js";
import { unquote } from "../src/parse/text.js";
import { repoRoot, workDir } from "../src/util/paths.js";

const root = repoRoot();

test("the committed tidy files are exactly what the parsers make of the raw excerpts", () => {
  const files = buildPublishedFiles(root);
  assert.ok(files.size >= 13);
  for (const [rel, content] of files) {
    assert.ok(existsSync(join(root, rel)), `${rel} is committed`);
    assert.equal(readFileSync(join(root, rel), "utf8"), content, `${rel} is up to date (run scripts/build-published)`);
  }
});

test("scripts/build-published --check agrees", () => {
  const r = spawnSync(process.execPath, [join(root, "dist/scripts/build-published.js"), "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^all \d+ tidy files agree with the raw excerpts$/m);
});

/** Whitespace-collapsed text without mail quoting. */
const norm = (s: string): string =>
  s
    .split(/\r?\n/)
    .map((l) => unquote(l).trim())
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();

test("each raw excerpt has the sha256 recorded when it was checked against its seed (no seed needed)", () => {
  for (const source of PUBLISHED_SOURCES) {
    assert.deepEqual(verbatimProblems(root, source), [], source);
    const rec = loadVerbatimRecord(root, source)!;
    assert.equal(rec.source, source);
    assert.equal(rec.seed.file, basename(loadProvenance(source).seed), `${source}: the record names provenance's seed`);
    assert.ok(rec.blocks.length >= 1, source);
  }
});

test("a changed, added or dropped raw excerpt is reported against the record", () => {
  const tmp = mkdtempSync(join(tmpdir(), "slicelab-verbatim-"));
  try {
    cpSync(join(root, PUBLISHED_DIR), join(tmp, PUBLISHED_DIR), { recursive: true });
    const dir = join(tmp, PUBLISHED_DIR, "rostedt-2023");
    const raw = loadVerbatimRecord(tmp, "rostedt-2023")!.blocks[0]!.raw;
    writeFileSync(join(dir, raw), readFileSync(join(dir, raw), "utf8").replace(/\d/, (d) => String((Number(d) + 1) % 10)));
    writeFileSync(join(dir, "added.raw.txt"), "not from the post\n");
    const problems = verbatimProblems(tmp, "rostedt-2023");
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[0]!, new RegExp(`^${PUBLISHED_DIR}/rostedt-2023/added\\.raw\\.txt has no entry in .*verbatim\\.json: run \`node dist/scripts/record-verbatim\\.js\``));
    assert.match(problems[1]!, new RegExp(`^${PUBLISHED_DIR}/rostedt-2023/${raw.replace(/\./g, "\\.")}: expected sha256 [0-9a-f]{64} \\(recorded when it was checked against the seed\\), found [0-9a-f]{64}$`));
    rmSync(join(dir, raw));
    rmSync(join(dir, "added.raw.txt"));
    assert.deepEqual(verbatimProblems(tmp, "rostedt-2023"), [`${PUBLISHED_DIR}/rostedt-2023/verbatim.json lists ${raw}, which is not in ${PUBLISHED_DIR}/rostedt-2023`]);
    // A seed that does not hold an excerpt: no record is made.
    assert.throws(
      () => makeVerbatimRecord(root, "rostedt-2023", "seed.txt", Buffer.from("some other post\n")),
      (e: unknown) => e instanceof UserError && /^data\/published\/rostedt-2023\/\S+\.raw\.txt: expected a verbatim block of the seed seed\.txt/.test(e.message),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

for (const source of PUBLISHED_SOURCES) {
  test(`${source}: the seed post, where present, has the recorded hash and holds each excerpt at its recorded offset`, (t) => {
    const p = loadProvenance(source);
    const seed = findSeed(root, p.seed);
    if (!seed.path) {
      t.skip(`seed ${basename(p.seed)} not on this machine (looked in ${seed.tried.join(", ")}; set SLICELAB_SEEDS): only the recorded hashes were checked`);
      return;
    }
    const text = readFileSync(seed.path);
    assert.deepEqual(seedProblems(root, source, text), [], seed.path);
    // The record is what record-verbatim makes from these files now.
    assert.deepEqual(loadVerbatimRecord(root, source), makeVerbatimRecord(root, source, p.seed, text));
    for (const n of readdirSync(join(root, PUBLISHED_DIR, source)).filter((x) => x.endsWith(".raw.txt"))) {
      assert.ok(text.includes(readFileSync(join(root, PUBLISHED_DIR, source, n))), `${source}/${n} is a verbatim block of ${seed.path}`);
    }
  });
}

test("scripts/record-verbatim --check agrees where the seeds are present", (t) => {
  const missing = PUBLISHED_SOURCES.filter((s) => !findSeed(root, loadProvenance(s).seed).path);
  if (missing.length > 0) {
    t.skip(`seeds of ${missing.join(", ")} not on this machine`);
    return;
  }
  const r = spawnSync(process.execPath, [join(root, "dist/scripts/record-verbatim.js"), "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`^all ${PUBLISHED_SOURCES.length} verbatim records agree with the raw excerpts and seeds$`, "m"));
});

test("provenance: identifiers, and every fact quoted from a raw excerpt", () => {
  for (const source of PUBLISHED_SOURCES) {
    const p = loadProvenance(source);
    assert.equal(p.source, source);
    for (const k of ["subject", "author", "date", "url", "list", "seed", "identifier_note"] as const) {
      assert.ok(typeof p[k] === "string" && p[k].length > 0, `${source}: ${k}`);
    }
    assert.ok(!Number.isNaN(Date.parse(p.date)), `${source}: date ${p.date}`);
    assert.ok(p.message_id === null || /^[^<>\s]+@[^<>\s]+$/.test(p.message_id), `${source}: message_id ${p.message_id}`);
    if (p.message_id !== null) assert.ok(p.url.includes(p.message_id), `${source}: URL from the Message-ID`);
    assert.ok(p.facts.length >= 4, `${source}: facts`);
    for (const f of p.facts) {
      const raw = readFileSync(join(root, PUBLISHED_DIR, source, f.raw), "utf8");
      assert.ok(norm(raw).includes(norm(f.quote)), `${source} fact ${f.id}: quote found in ${f.raw}`);
      if (typeof f.value === "string" || typeof f.value === "number") {
        assert.ok(norm(f.quote).includes(String(f.value)), `${source} fact ${f.id}: value ${f.value} in its quote`);
      }
    }
  }
  // Rostedt's post has no headers in the seed: its Message-ID was looked up.
  assert.equal(loadProvenance("rostedt-2023").message_id, "20231027175216.1424cd83@gandalf.local.home");
  // Lahr's post: its Message-ID was verified in stored copies of the list's mails (issue 17).
  assert.equal(loadProvenance("lahr-2001").message_id, "20010215104656.A6856@w-lahr.des.sequent.com");
});

test("Rostedt 2023: 16 runs per side, the first discarded; his Average/Std Dev follow from the 15 others", () => {
  const d = loadRostedt2023();
  assert.equal(d.runs.length, 32);
  for (const side of ["without-patch", "with-patch"] as const) {
    assert.equal(rostedtTps(d, side, "all").length, fact(d.provenance, "runs_per_side"));
    assert.equal(rostedtTps(d, side, "first").length, 1);
    const x = rostedtTps(d, side);
    assert.equal(x.length, fact(d.provenance, "runs_compared_per_side"));
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (x.length - 1));
    const rep = d.reported.find((r) => r.side === side)!;
    // He printed four decimals; the sample SD (n − 1) matches, the population SD would not.
    assert.ok(Math.abs(mean - rep.average) < 1e-3, `${side} mean ${mean} vs ${rep.average}`);
    assert.ok(Math.abs(sd - rep.stdDev) < 1e-3, `${side} sd ${sd} vs ${rep.stdDev}`);
  }
  assert.deepEqual(
    d.runs.filter((r) => r.role === "first").map((r) => [r.side, r.tps, r.line]),
    [
      ["without-patch", 72573.188203, 4],
      ["with-patch", 73562.00597, 4],
    ],
  );
});

test("Sangappa 2024: both tests, with and without the extension, and the stated improvements", () => {
  const d = loadSangappa2024();
  assert.deepEqual(
    d.results.map((r) => [r.test, r.without, r.withFeature, r.unit, r.statedImprovementPct]),
    [
      ["Lock table test", 182000, 262000, "SQL exec/sec", 44],
      ["Swingbench", 99000, 153000, "SQL exec/sec", 55],
    ],
  );
  assert.equal(fact(d.provenance, "extension_us"), 50);
  assert.equal(fact(d.provenance, "machine"), "2 socket AMD Genoa");
});

test("Lahr 2001: lockmeter rows, machines with [48]-way expanded, Spraul's figures", () => {
  const d = loadLahr2001();
  assert.equal(d.rows.length, 80);
  assert.deepEqual(
    d.machines.map((m) => [m.machine, m.cpus, m.memory, m.cpu]),
    [
      ["2way", 2, ".5 Gb", "Pentium II, 300 MHz"],
      ["4way", 4, "1 Gb", "Pentium III, 700 MHz"],
      ["8way", 8, "1 Gb", "Pentium III, 700 MHz"],
    ],
  );
  assert.match(d.machines[2]!.kernel, /2\.4\.0\.MQ1-sched\.rt/);
  assert.doesNotMatch(d.machines[0]!.kernel, /MQ1/);
  assert.deepEqual(
    d.spraul.map((f) => [f.id, f.value, f.unit, f.approximate, f.line]),
    [
      ["wall-clock", 129, "s", true, 3],
      ["cpu-time", 1030, "s", false, 4],
      ["spinning", 0.7, "s", true, 4],
    ],
  );
  assert.equal(d.blanchardQuote.length, 2);
});

test("Lu 2023: profile rows before/after the commit, sysbench parameters, PostgreSQL settings", () => {
  const d = loadLu2023();
  assert.deepEqual(
    d.profile.map((r) => [r.kernel, r.symbol, r.childrenPct, r.selfPct]),
    [
      ["before", "__schedule", 7.3, 0.71],
      ["before", "native_queued_spin_lock_slowpath", 0.03, 0.03],
      ["after", "__schedule", 49.01, 0.87],
      ["after", "native_queued_spin_lock_slowpath", 43.2, 43.18],
    ],
  );
  assert.deepEqual(
    d.sysbench.map((c) => c.args),
    [
      ["/usr/share/sysbench/oltp_read_only.lua", "prepare"],
      ["/usr/share/sysbench/oltp_read_only.lua", "run"],
    ],
  );
  const run = d.sysbench[1]!.options;
  assert.equal(Number(run.threads), fact(d.provenance, "sysbench_threads"));
  assert.deepEqual([run.tables, run["table-size"], run.time, run["report-interval"], run["db-driver"]], ["16", "10000", "60", "2", "pgsql"]);
  assert.deepEqual(d.postgresSettings, { shared_buffers: "80MB", max_connections: "250" });
});

test("a damaged raw excerpt stops the build with FILE:LINE before anything is written", () => {
  const base = join(workDir(), "test-tmp");
  mkdirSync(base, { recursive: true });
  const tmp = mkdtempSync(join(base, "published-"));
  try {
    // A copy of the repository's published data with one lockmeter row cut short.
    cpSync(join(root, PUBLISHED_DIR), join(tmp, PUBLISHED_DIR), { recursive: true });
    const f = join(tmp, PUBLISHED_DIR, "lahr-2001/lockstat.raw.txt");
    const lines = readFileSync(f, "utf8").split("\n");
    lines[26] = lines[26]!.replace(/\s+\S+$/, "").replace(/\s+\d+$/, "");
    lines[27] = "";
    writeFileSync(f, lines.join("\n"));
    assert.throws(
      () => buildPublishedFiles(tmp),
      (e: unknown) => e instanceof ParseError && e.message.startsWith(`${PUBLISHED_DIR}/lahr-2001/lockstat.raw.txt:27: expected a lockmeter row`),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("prose and result-block parsers report what is missing", async () => {
  const { extractFigures, parseWithWithout, parseOutline } = await import("../src/parse/figures.js");
  const spraul = "data/published/lahr-2001/spraul-reply.raw.txt";
  const text = readFileSync(join(root, spraul), "utf8");
  assert.throws(
    () => extractFigures(text, spraul, [{ id: "idle", before: "were idle for", after: "seconds", unit: "s" }]),
    (e: unknown) => e instanceof ParseError && /expected a figure matching \/were idle for N seconds\/ \(idle\), found none$/.test(e.message),
  );
  const sangappa = "data/published/sangappa-2024/test-results.raw.txt";
  const cut = readFileSync(join(root, sangappa), "utf8").split("\n").slice(0, 9).join("\n");
  assert.throws(
    () => parseWithWithout(cut, sangappa),
    (e: unknown) => e instanceof ParseError && /expected a "With …:" line completing the result block of "Lock table test", found end of file/.test(e.message),
  );
  assert.throws(() => parseOutline("a:\n    b: 1\n  c: 2\n", "o"), /o:3: expected an indentation matching an enclosing level/);
  assert.throws(() => parseOutline("a: 1\n  b: 2\n", "o"), /o:2: expected a line at the indentation of "a" \(it already has a value\)/);
});
