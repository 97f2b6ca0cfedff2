// kernel-patches/postgresql/versions.json against the files it names, and the patch version of a
// record read from its envelope (src/postgres/patch-version.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diagPatchHash, patchHash } from "../src/postgres/patch.js";
import { patchVersionOf, patchVersionOfField, readPatchVersions, recordPatchVersion } from "../src/postgres/patch-version.js";
import { ParseError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const table = readPatchVersions();

test("every hash the table gives for a kept file or the current series is that file's hash", () => {
  for (const e of table) {
    if (e.series) assert.equal(e.hash, e.diag ? diagPatchHash(e.series) : patchHash(e.series), `${e.version} ${e.major}${e.diag ? " diag" : ""}: the series changed; update versions.json`);
    if (e.file) {
      const h = createHash("sha256").update(readFileSync(join(repoRoot(), "kernel-patches/postgresql", e.file))).digest("hex").slice(0, 12);
      assert.equal(e.hash, h, e.file);
    }
  }
  // the current series of both majors is v3
  assert.equal(patchVersionOf(patchHash("18"), table), "v3");
  assert.equal(patchVersionOf(patchHash("15"), table), "v3");
});

test("patchVersionOfField: per-variant hashes, unpatched, unknown (with the envelope's reason)", () => {
  assert.deepEqual(patchVersionOfField("off: c36db6f89a56; on: c36db6f89a56", table), { version: "v1", hashes: ["c36db6f89a56"], detail: "c36db6f89a56 = v1" });
  assert.equal(patchVersionOfField(`baseline: none (unpatched); patched: ${patchHash("18")}`, table).version, "v3");
  assert.equal(patchVersionOfField("c36db6f89a56; e19f5bec8d7b", table).version, "v1, v2");
  assert.equal(patchVersionOfField("none (unpatched)", table).version, "unpatched");
  // the study runner records the full sha256 of the series
  assert.equal(patchVersionOfField("e19f5bec8d7ba68fae8153e128fb206275555ba699b34f8ad81dac2e853882c5", table).version, "v2");
  assert.equal(patchVersionOfField("patch hash 0123456789ab (README.md)", table).version, "unknown hash 0123456789ab");
  // a diag build: series + diagnostic patch, one version
  assert.deepEqual(patchVersionOfField("e19f5bec8d7b+6c5f164e0cf6", table), { version: "v2", hashes: ["e19f5bec8d7b", "6c5f164e0cf6"], detail: "e19f5bec8d7b = v2; 6c5f164e0cf6 = v2 diagnostic patch" });
  assert.equal(patchVersionOfField(`${patchHash("18")}+${diagPatchHash("18")}`, table).version, "v3");
  assert.equal(patchVersionOfField(`baseline: none (unpatched); patched: ${patchHash("15")}`, table).version, "v3");
  const u = patchVersionOfField({ unknown: "none of summary.json records the PostgreSQL patch version" }, table);
  assert.equal(u.version, "unknown");
  assert.match(u.detail, /summary\.json/);
});

test("recordPatchVersion reads record.json; a bad table is refused naming the entry", () => {
  const d = mkdtempSync(join(tmpdir(), "slicelab-pv-"));
  try {
    writeFileSync(join(d, "record.json"), JSON.stringify({ postgres: { patch: "d4dc3f02e27e" } }));
    assert.equal(recordPatchVersion(d, table).version, "v2");
    assert.equal(recordPatchVersion(join(d, "nope"), table).version, "unknown");
    writeFileSync(join(d, "versions.json"), JSON.stringify({ versions: [{ version: "v1", major: "18", hash: "xyz" }] }));
    assert.throws(() => readPatchVersions(join(d, "versions.json")), (e: unknown) => e instanceof ParseError && /versions\[0\]\.hash/.test((e as Error).message));
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("the committed records of the v1 VM cells say v1, the v2 records say v2", () => {
  const runs = join(repoRoot(), "data/runs");
  assert.equal(recordPatchVersion(join(runs, "vm-eviction/20261130T031518Z"), table).version, "v1");
  assert.equal(recordPatchVersion(join(runs, "pg-check/20261201T190355Z"), table).version, "v2");
  assert.equal(recordPatchVersion(join(runs, "dipietro-2026/20261201T223016Z"), table).version, "v2");
  // the traced PostgreSQL run records only its pgBin: the kit build prefix names the hash
  assert.equal(recordPatchVersion(join(runs, "slice-trace/20261130T045713Z"), table).version, "v1");
});
