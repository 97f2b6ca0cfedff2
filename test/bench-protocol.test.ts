// Protocol files: the kit's own load; broken ones fail with FILE:LINE and the field; parameters scale with CPUs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { repoRoot } from "../src/util/paths.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadProtocol, protocolNames, protocolsDir, resolveParams, resolveWorkloads, substitute } from "../src/bench/protocol.js";
import { parseVariant, parseVariants } from "../src/bench/variant.js";
import { planSeries } from "../src/bench/design.js";
import { ParseError, UserError } from "../src/util/errors.js";

test("every protocol of the kit loads, and the issue's protocols are there", () => {
  const names = protocolNames();
  for (const n of ["rostedt-2023", "sangappa-2024-locktable", "lu-2023-sysbench", "dipietro-2026-eviction", "smoke"]) assert.ok(names.includes(n), n);
  for (const n of names) {
    const p = loadProtocol(n);
    assert.equal(p.name, n);
    assert.match(p.hash, /^[0-9a-f]{64}$/);
    assert.ok(p.expanded.length >= 1);
  }
});

test("protocol sources name the repository's published data, never a path of one machine", () => {
  for (const n of protocolNames()) {
    const src = loadProtocol(n).source ?? {};
    for (const [k, v] of Object.entries(src)) {
      assert.doesNotMatch(v, /(^|[\s(])\/(work|home|root|tmp|var)\//, `${n}: source.${k} holds a machine-local path: ${v}`);
    }
    if (src.published !== undefined) {
      assert.match(src.published, /^data\/published\/[a-z0-9-]+\/provenance\.json$/, `${n}: source.published`);
      assert.ok(existsSync(join(repoRoot(), src.published)), `${n}: ${src.published} exists`);
    }
  }
  assert.equal(loadProtocol("rostedt-2023").source?.published, "data/published/rostedt-2023/provenance.json");
});

test("rostedt-2023 resolves to the post's command", () => {
  const [w] = resolveWorkloads(loadProtocol("rostedt-2023"), 2);
  assert.deepEqual(w?.args, ["-c", "100", "-T", "300", "-j", "8", "-S", "-n"]);
  assert.equal(w?.settings.max_connections, 110);
  assert.equal(w?.database, "pgbench_s100");
  const [short] = resolveWorkloads(loadProtocol("rostedt-2023"), 2, { duration: "20" });
  assert.deepEqual(short?.args.slice(2, 4), ["-T", "20"]);
});

test("the lock-table protocol scales 300 clients + 400 hogs with the CPU count", () => {
  const p = loadProtocol("sangappa-2024-locktable");
  const big = resolveWorkloads(p, 384)[0];
  assert.equal(big?.params.clients, 300);
  assert.equal(big?.hogs, 400);
  const small = resolveWorkloads(p, 2)[0];
  assert.equal(small?.params.clients, 8); // the floor: round(0.78) = 2 < 8
  assert.equal(small?.hogs, 2);
  assert.equal(small?.params.max_connections, 18);
  const over = resolveWorkloads(p, 2, { hogs: "7", clients: "20" })[0];
  assert.equal(over?.hogs, 7);
  assert.equal(over?.params.max_connections, 30, "derived parameters follow overrides");
  assert.ok(over?.args.includes(join(protocolsDir(), "sangappa-2024-locktable.sql")));
  assert.throws(() => resolveWorkloads(p, 2, { clinets: "3" }), /--param clinets: protocol sangappa-2024-locktable has no parameter "clinets"/);
});

test("the smoke protocol borrows the four workloads with small parameters", () => {
  const ws = resolveWorkloads(loadProtocol("smoke"), 2);
  assert.deepEqual(ws.map((w) => w.name), ["rostedt", "locktable", "sysbench", "eviction"]);
  assert.deepEqual(ws.map((w) => w.tool), ["pgbench", "pgbench", "sysbench", "pgbench"]);
  assert.ok(ws[2]?.args.includes("--time=2"));
  assert.equal(ws[3]?.settings.shared_buffers, "16MB");
});

test("parameters: perCpu clamps, sums add, cycles are refused, placeholders keep types", () => {
  assert.deepEqual(resolveParams({ a: { perCpu: 0.5, min: 3, max: 10 }, b: { sum: ["a", 1] } }, 64), { a: 10, b: 11 });
  assert.deepEqual(resolveParams({ a: { perCpu: 0.5, min: 3 } }, 2), { a: 3 });
  assert.throws(() => resolveParams({ a: { sum: ["b"] }, b: { sum: ["a"] } }, 2), /defined in terms of itself/);
  assert.equal(substitute("{n}", { n: 5 }), 5);
  assert.equal(substitute("db_{n}_x", { n: 5 }), "db_5_x");
});

function badProtocol(name: string, body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "slicelab-proto-"));
  const file = join(dir, `${name}.json`);
  writeFileSync(file, body);
  return file;
}

const good = {
  name: "tiny",
  title: "t",
  runs: 3,
  warmup: 1,
  params: { clients: 4 },
  workloads: [{ name: "w", tool: "pgbench", database: "db", args: ["-c", "{clients}"] }],
};

function expectParseError(file: string, line: number, pattern: RegExp): void {
  assert.throws(
    () => loadProtocol(file),
    (err: unknown) => {
      assert.ok(err instanceof ParseError, `expected ParseError, got ${String(err)}`);
      assert.equal(err.file, file);
      assert.equal(err.line, line);
      assert.match(err.message, pattern);
      assert.ok(err.message.startsWith(`${file}:${line}: expected `), err.message);
      return true;
    },
  );
}

test("a bad tool is reported with file, line and field", () => {
  const w = { ...good.workloads[0], tool: "pgbnch" };
  const file = badProtocol("tiny", JSON.stringify({ ...good, workloads: [w] }, null, 2));
  expectParseError(file, 12, /workloads\[0\]\.tool to be "pgbench" or "sysbench", found "pgbnch"/);
});

test("a protocol that sets listen_addresses is refused with file, line and field (issue 28 item 13)", () => {
  // The kit's clusters trust local connections and set listen_addresses = ''; settings apply after that.
  for (const key of ["listen_addresses", "LISTEN_ADDRESSES"]) {
    const w = { ...good.workloads[0], settings: { work_mem: "4MB", [key]: "*" } };
    const file = badProtocol("tiny", JSON.stringify({ ...good, workloads: [w] }, null, 2));
    // Line 20 of the pretty-printed file: "listen_addresses": "*".
    expectParseError(file, 20, new RegExp(`workloads\\[0\\]\\.settings\\.${key} to be absent: the kit's clusters use trust authentication on the Unix socket only, with listen_addresses = '' \\(src/postgres/cluster\\.ts\\), and a protocol's settings would override that, found "\\*"`));
  }
  // Other settings still load.
  const ok = { ...good.workloads[0], settings: { work_mem: "4MB" } };
  assert.doesNotThrow(() => loadProtocol(badProtocol("tiny", JSON.stringify({ ...good, workloads: [ok] }, null, 2))));
});

test("an unknown placeholder, a missing field, an unknown field and broken JSON are reported", () => {
  const w = { ...good.workloads[0], args: ["-c", "{clinets}"] };
  expectParseError(badProtocol("tiny", JSON.stringify({ ...good, workloads: [w] }, null, 2)), 14, /workloads\[0\]\.args\[1\] to be a string whose \{placeholders\} name parameters \(clients, cpus, protocolDir\), found "\{clinets\}"/);
  const { runs: _r, ...noRuns } = good;
  expectParseError(badProtocol("tiny", JSON.stringify(noRuns, null, 2)), 1, /runs to be an integer ≥ 1, found nothing/);
  expectParseError(badProtocol("tiny", JSON.stringify({ ...good, warmpu: 1 }, null, 2)), 20, /warmpu to be one of the fields/);
  expectParseError(badProtocol("tiny", '{\n  "name": "tiny",\n  "runs": 3,,\n}\n'), 3, /valid JSON/);
  expectParseError(badProtocol("other", JSON.stringify(good, null, 2)), 2, /name to be the file's name "other", found "tiny"/);
  expectParseError(badProtocol("tiny", JSON.stringify({ ...good, warmup: 3 }, null, 2)), 5, /warmup to be fewer than runs \(3\), found 3/);
});

test("a reference to another protocol checks the workload and the overridden parameters", () => {
  const ref = (params: Record<string, unknown>) =>
    badProtocol("tiny", JSON.stringify({ name: "tiny", title: "t", runs: 2, warmup: 0, workloads: [{ from: "rostedt-2023", params }] }, null, 2));
  expectParseError(ref({ scael: 1 }), 10, /workloads\[0\]\.params\.scael to be a parameter of rostedt-2023 \(scale, clients, threads, duration, max_connections\), found "scael"/);
  const ok = loadProtocol(ref({ scale: 1 }));
  assert.equal(resolveWorkloads(ok, 2)[0]?.database, "pgbench_s1");
  assert.notEqual(ok.hash, loadProtocol("rostedt-2023").hash);
});

test("variants: builds, settings, environment, escaped commas; bad items are named", () => {
  const v = parseVariant("patched=bin=/opt/pg/bin,setting:slice_extension=all,env:GLIBC_TUNABLES=glibc.pthread.rseq=1,setting:search_path=a\\,b");
  assert.equal(v.name, "patched");
  assert.equal(v.bin, "/opt/pg/bin");
  assert.deepEqual(v.settings, { slice_extension: "all", search_path: "a,b" });
  assert.deepEqual(v.env, { GLIBC_TUNABLES: "glibc.pthread.rseq=1" });
  assert.deepEqual(parseVariant("vm=kernel=/k/bzImage,boot:preempt=lazy").boot, ["preempt=lazy"]);
  assert.deepEqual(parseVariant("A=default").settings, {});
  assert.throws(() => parseVariant("A=huge_pages=on"), /--variant A=huge_pages=on: expected items bin=DIR, setting:NAME=VALUE, env:NAME=VALUE, kernel=PATH, boot:PARAM or default, found "huge_pages=on"/);
  assert.throws(() => parseVariants(["A=default", "A=setting:x=1"]), UserError);
  assert.equal(parseVariants([])[0]?.name, "base");
});

test("block design: every block holds each variant once, the seed fixes the order; sequential runs A then B", () => {
  const p = planSeries(["A", "B"], 16, 1, "blocks", 7);
  assert.equal(p.length, 32);
  for (let b = 1; b <= 16; b++) assert.deepEqual(p.filter((r) => r.block === b).map((r) => r.variant).sort(), ["A", "B"]);
  assert.deepEqual(p.filter((r) => r.warmup).map((r) => r.block), [1, 1]);
  assert.deepEqual(planSeries(["A", "B"], 16, 1, "blocks", 7), p);
  const orders = new Set(p.map((r) => r.variant).join(""));
  const other = planSeries(["A", "B"], 16, 1, "blocks", 8).map((r) => r.variant).join("");
  assert.notEqual(other, [...orders][0], "another seed gives another order");
  assert.ok(p.some((r, i) => i % 2 === 0 && r.variant === "B"), "B comes first in some block");
  const s = planSeries(["A", "B"], 3, 1, "sequential", 1);
  assert.deepEqual(s.map((r) => r.id), ["001-A", "002-A", "003-A", "004-B", "005-B", "006-B"]);
  assert.deepEqual(s.map((r) => r.warmup), [true, false, false, true, false, false]);
});
