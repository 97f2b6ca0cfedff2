// /proc/lock_stat as posted to the mailing lists (test/fixtures/proc-lock-stat/public/, each with
// its *.source.json: Message-ID, list, author, date): versions 0.3 and 0.4, wrapped rows and points,
// quoting, before/after tables, edited headers, prose around the tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";
import { ParseError } from "../src/util/errors.js";
import { parseLockStatExcerpt, type ExcerptRow } from "../src/parse/lock-stat-excerpt.js";
import { cliParse } from "./helpers/cli.js";

const dir = join(repoRoot(), "test/fixtures/proc-lock-stat/public");
const read = (name: string): string => readFileSync(join(dir, `${name}.txt`), "utf8");
const parse = (name: string) => parseLockStatExcerpt(read(name), `${name}.txt`);
const figures = (r: ExcerptRow) => [
  r.conBounces, r.contentions, r.waittimeMinUs, r.waittimeMaxUs, r.waittimeTotalUs, r.waittimeAvgUs,
  r.acqBounces, r.acquisitions, r.holdtimeMinUs, r.holdtimeMaxUs, r.holdtimeTotalUs, r.holdtimeAvgUs,
];

test("Singh 2009 (v0.3): before/after tables, every row and point wrapped at ~72 columns, prose after", () => {
  const ex = parse("singh-2009-res-counter-wrapped");
  assert.deepEqual(ex.tables.map((t) => [t.version, t.label, t.classes.map((c) => c.name)]), [
    ["0.3", "Before the patch, I see", ["&counter->lock"]],
    ["0.3", "After the patch I see", ["&(&counter->lock)->lock"]],
  ]);
  const [before, after] = ex.tables.map((t) => t.classes[0]!);
  assert.deepEqual(figures(before!.rows[0]!), [1534627, 1575341, 0.57, 18.39, 675713.23, null, 43330446, 138524248, 0.43, 148.13, 54133607.05, null]);
  assert.deepEqual(figures(after!.rows[0]!), [962193, 976349, 0.6, 14.07, 465926.04, null, 21364165, 66041988, 0.45, 88.31, 25395513.12, null]);
  assert.deepEqual(
    before!.points.map((p) => `${p.role} ${p.count} ${p.symbol}`),
    [
      "contention 809559 res_counter_charge+0x3f/0xed",
      "contention 765782 res_counter_uncharge+0x2c/0x6d",
      "contending 653284 res_counter_uncharge+0x2c/0x6d",
      "contending 922057 res_counter_charge+0x3f/0xed",
    ],
  );
  assert.equal(after!.points[3]!.ip, "[<ffffffff8108106e>]");
  assert.deepEqual(ex.warnings.map((w) => w.line), [25, 48]);
  assert.match(ex.warnings[1]!.message, /^table 2 ends here: followed by text that is not lock_stat output \("Please review/);
});

test("Kamezawa 2009 (v0.3): one table between == lines, symbols without /len", () => {
  const ex = parse("kamezawa-2009-coalescing-uncharge");
  assert.equal(ex.tables.length, 1);
  const c = ex.tables[0]!.classes[0]!;
  assert.equal(c.name, "&counter->lock");
  assert.deepEqual(figures(c.rows[0]!), [3074759, 3086077, 0.94, 14372.27, 1978508.38, null, 68039606, 80763359, 0.45, 34243.51, 37892635.86, null]);
  assert.deepEqual(c.points.map((p) => p.count), [2970383, 112516, 3178, 2973905, 109581, 2591]);
  assert.equal(c.points[0]!.symbol, "res_counter_charge+0x4d");
  assert.deepEqual(c.points.map((p) => p.role), ["contention", "contention", "contention", "contending", "contending", "contending"]);
});

test("Kumar 2013 (v0.3, ppc64): an edited header is reported and the version layout used", () => {
  const ex = parse("kumar-2013-ppc64-page-table-lock");
  const row = ex.tables[0]!.classes[0]!.rows[0]!;
  assert.equal(row.className, "&(&mm->page_table_lock)->rlock");
  assert.deepEqual(figures(row), [713531791, 719610919, 0.09, 3038193.19, 357867523236.3, null, 729709189, 750040162, 0, 236991.36, 1159646899.68, null]);
  assert.equal(ex.tables[0]!.classes[0]!.points.length, 8);
  assert.equal(ex.tables[0]!.classes[0]!.points[2]!.symbol, ".change_protection+0x1d4/0x560");
  assert.match(ex.warnings[0]!.message, /column header not recognised .*used the version 0\.3 layout/);
  assert.equal(ex.warnings[0]!.line, 3);
});

test("Rezki 2023 (v0.4): left-aligned paste, hashed addresses, four classes, <snip> after", () => {
  const ex = parse("rezki-2023-vmap-area-lock");
  const t = ex.tables[0]!;
  assert.equal(t.version, "0.4");
  assert.equal(t.label, "root@pc638:/home/urezki# cat /proc/lock_stat");
  assert.deepEqual(t.classes.map((c) => c.name), ["vmap_area_lock", "vmap_blocks.xa_lock", "free_vmap_area_lock", "purge_vmap_area_lock"]);
  assert.deepEqual(figures(t.classes[0]!.rows[0]!), [2554079, 2554276, 0.06, 213.61, 11719647.67, 4.59, 2986513, 3005712, 0.05, 67.02, 3573323.37, 1.19]);
  assert.deepEqual(figures(t.classes[3]!.rows[0]!).slice(6), [1514794, 1515078, 0.05, 67.73, 912391.12, 0.6]);
  assert.deepEqual(t.classes.map((c) => c.points.length), [6, 4, 6, 4]);
  assert.equal(t.classes[1]!.points[0]!.ip, "[<00000000625a5626>]");
  assert.equal(ex.warnings.length, 1);
  assert.equal(ex.warnings[0]!.line, 49);
});

test("Torok 2008 (v0.3): quoted three levels deep, -W/-R rows and points wrapped, no blank after the header", () => {
  const ex = parse("torok-2008-mmap-sem-quoted-wrapped");
  const c = ex.tables[0]!.classes[0]!;
  assert.equal(c.name, "&mm->mmap_sem");
  assert.deepEqual(c.rows.map((r) => r.mode), ["write", "read"]);
  assert.deepEqual(figures(c.rows[0]!), [5843, 10462, 2.89, 138824.72, 14217159.52, null, 18965, 84205, 1.81, 5031.07, 725293.65, null]);
  assert.deepEqual(figures(c.rows[1]!), [20208, 34911, 4.87, 136797.26, 57601464.49, null, 55797, 1110394, 1.89, 164918.52, 30551371.71, null]);
  // The poster's own sums in the prose: contentions 34911 + 10462 and waittime-total 57 601 464 (µs, rounded).
  assert.equal(c.rows[1]!.contentions + c.rows[0]!.contentions, 34911 + 10462);
  assert.equal(Math.round(c.rows[1]!.waittimeTotalUs), 57601464);
  assert.deepEqual(c.points.map((p) => p.count), [5341, 28579, 5030, 6331, 13558, 4694, 3681, 23374]);
});

test("mail artefacts: CRLF, tabs, another quoting level and a signature give the same records", () => {
  const base = parse("rezki-2023-vmap-area-lock");
  const variants = {
    crlf: read("rezki-2023-vmap-area-lock").replace(/\n/g, "\r\n"),
    tabs: read("rezki-2023-vmap-area-lock").replace(/ {8}/g, "\t"),
    quoted: read("rezki-2023-vmap-area-lock").split("\n").map((l) => `> ${l}`).join("\n"),
    signed: `${read("rezki-2023-vmap-area-lock")}\n-- \nUladzislau Rezki\n`,
  };
  for (const [name, text] of Object.entries(variants)) {
    const ex = parseLockStatExcerpt(text, name);
    assert.deepEqual(ex.tables.map((t) => t.classes), base.tables.map((t) => t.classes), name);
  }
});

test("excerpts: a table without version line, one without header, and a grep of class rows", () => {
  const text = read("rezki-2023-vmap-area-lock");
  const noVersion = text.replace("lock_stat version 0.4\n", "");
  const ex1 = parseLockStatExcerpt(noVersion, "nv");
  assert.equal(ex1.tables[0]!.version, null);
  assert.equal(ex1.tables[0]!.classes.length, 4);
  assert.match(ex1.warnings[0]!.message, /no "lock_stat version" line before the column header/);
  const rows = text.split("\n").filter((l) => /^\S+:\s+\d/.test(l)).join("\n");
  const ex2 = parseLockStatExcerpt(rows, "grep");
  assert.deepEqual(ex2.tables[0]!.classes.map((c) => c.rows[0]!.contentions), [2554276, 862698, 394961, 169312]);
  assert.match(ex2.warnings.map((w) => w.message).join("\n"), /12 numbers per row read as the lock_stat version 0\.4 layout/);
});

test("errors: a wrapped row that is cut short, a bad number inside a table, no table at all", () => {
  const cut = read("singh-2009-res-counter-wrapped").replace("0.43         148.13    54133607.05\n", "");
  assert.throws(
    () => parseLockStatExcerpt(cut, "cut.txt"),
    (e: unknown) => e instanceof ParseError && /^cut\.txt:\d+: expected 10 numbers for class "&counter->lock" \(row from line 10\), found 7$/.test(e.message),
  );
  const bad = read("rezki-2023-vmap-area-lock").replace("862689         862698", "862689         8626x8");
  assert.throws(() => parseLockStatExcerpt(bad, "bad.txt"), (e: unknown) => e instanceof ParseError && e.line === 20 && /expected a lock class row/.test(e.message));
  assert.throws(() => parseLockStatExcerpt("Hello,\n\nsome prose.\n", "p.txt"), (e: unknown) => e instanceof ParseError && e.message.startsWith('p.txt:1: expected lock_stat output'));
});

test("CLI: parse auto reads the public samples from a file and from stdin, warnings in the JSON", () => {
  const r = cliParse("auto", "singh.txt", read("singh-2009-res-counter-wrapped"));
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.format, "proc-lock-stat");
  assert.deepEqual(j.records.map((x: { table: number; contentions: number }) => [x.table, x.contentions]), [[1, 1575341], [2, 976349]]);
  assert.deepEqual(Object.keys(j), ["format", "records", "warnings"]);
  assert.equal(j.warnings.length, 2);
  assert.equal(j.warnings[0].line, 25);
});
