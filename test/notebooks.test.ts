/**
 * Executes every notebook (notebooks/*.ipynb, in order) in a fresh tslab kernel and
 * fails if a cell fails, if a recorded value differs from the claims ledger, or if
 * the committed outputs are stale (differ from a fresh run).
 *
 * Hook for the ledger check: a notebook records a ledger value with
 * `recordValue(claimValueName(id, key), value)` (src/report/notebook.ts and
 * src/claims/entry.ts); every recorded name that the ledger knows
 * (`ledgerValueNames(buildLedger())`) must equal the ledger's value.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { executeNotebook, listNotebooks, notebookValues, NotebookError } from "../src/report/notebooks.js";
import { notebookOutputsDiffer } from "../src/report/freshness.js";
import { recordedValues, sameRecordedValue, valuePayload, valuesByName, VALUE_MIME, type RecordedValue } from "../src/report/values.js";
import { buildLedger, ledgerValueNames } from "../src/claims/index.js";
import { workDir } from "../src/util/paths.js";


test("recorded values: payload, read back, and conflicts between notebooks", () => {
  const nb = {
    cells: [
      { cell_type: "markdown", source: "# t" },
      { cell_type: "code", source: "x", outputs: [{ output_type: "display_data", data: { [VALUE_MIME]: valuePayload("a.b", 1.5) } }] },
      { cell_type: "code", source: "y", outputs: [{ output_type: "display_data", data: { [VALUE_MIME]: [valuePayload("c", "reproduced")] } }] },
    ],
  };
  assert.deepEqual(recordedValues(nb, "t.ipynb"), [
    { name: "a.b", value: 1.5, notebook: "t.ipynb", cell: 1 },
    { name: "c", value: "reproduced", notebook: "t.ipynb", cell: 2 },
  ]);
  assert.throws(() => valuePayload("Bad Name", 1), /name must match/);
  assert.throws(() => valuePayload("x", Number.NaN), /expected a finite number/);
  assert.throws(
    () => valuesByName([{ name: "v", value: 1, notebook: "a" }, { name: "v", value: 2, notebook: "b" }]),
    /value "v" recorded as 1 in a and as 2 in b/,
  );
  // Two correct computations of 153/99 − 1 in % differ in the last bit; that is not a conflict.
  assert.ok(sameRecordedValue((153000 / 99000 - 1) * 100, ((153000 - 99000) / 99000) * 100));
  assert.ok(!sameRecordedValue(54.5454, 54.5455));
  assert.ok(!sameRecordedValue("reproduced", "fragile"));
});

test("a failing cell is reported with the notebook, the cell index, its source and the error", { timeout: 300_000 }, async () => {
  const dir = join(workDir(), "test-notebooks", "failing");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "bad.ipynb");
  const cell = (id: string, source: string) => ({ cell_type: "code", id, metadata: {}, execution_count: null, outputs: [], source });
  writeFileSync(
    path,
    JSON.stringify({
      cells: [cell("ok", "const a = 1 + 1;"), cell("bad", 'const n: number = "seven";')],
      metadata: { kernelspec: { display_name: "TypeScript", language: "typescript", name: "tslab" } },
      nbformat: 4,
      nbformat_minor: 5,
    }),
  );
  await assert.rejects(executeNotebook(path, { out: join(dir, "out.ipynb") }), (err: unknown) => {
    assert.ok(err instanceof NotebookError, String(err));
    assert.equal(err.cell, 1);
    assert.match(err.message, /bad\.ipynb: cell 1 failed/);
    assert.match(err.message, /--- cell source ---\nconst n: number = "seven";/);
    assert.match(err.message, /Type 'string' is not assignable to type 'number'/);
    return true;
  });
  rmSync(dir, { recursive: true, force: true });
});

const notebooks = listNotebooks();
const ledgerValues = ledgerValueNames(buildLedger());
const allValues: RecordedValue[] = [];

test("there are notebooks, starting with the introduction", () => {
  assert.ok(notebooks.length >= 1);
  assert.equal(basename(notebooks[0]!), "00-introduction.ipynb");
});

for (const nb of notebooks) {
  const name = basename(nb);
  test(`notebook ${name}: runs top to bottom, matches the ledger, committed outputs are fresh`, { timeout: 900_000 }, async () => {
    const out = join(workDir(), "test-notebooks", name);
    // Throws NotebookError (notebook, cell, source, error) when a cell fails.
    const executed = await executeNotebook(nb, { out });
    const values = notebookValues(executed);
    allValues.push(...values);
    const mismatches = values
      .filter((v) => ledgerValues.has(v.name) && !sameRecordedValue(v.value, ledgerValues.get(v.name)))
      .map((v) => `${v.name}: notebook cell ${v.cell} recorded ${JSON.stringify(v.value)}, ledger has ${JSON.stringify(ledgerValues.get(v.name))}`);
    assert.deepEqual(mismatches, [], `${name} disagrees with the claims ledger`);
    const stale = notebookOutputsDiffer(nb, executed);
    assert.equal(stale, null, `${name}: committed outputs are stale (${stale}); run: node dist/scripts/run-notebooks.js notebooks/${name}`);
  });
}

test("no two notebooks record different values under the same name", () => {
  valuesByName(allValues);
});
