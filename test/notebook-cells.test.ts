// Every code cell of every notebook under notebooks/ has at most 25 lines (src/report/cell-length.ts):
// logic lives in src/ with tests, a cell calls it and renders.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cellLineCount, describeLongCell, longCells, MAX_CELL_LINES } from "../src/report/cell-length.js";
import { listNotebooks, readNotebook } from "../src/report/notebooks.js";

test("the rule counts lines as an editor shows them and names notebook, cell and length", () => {
  assert.equal(cellLineCount(""), 0);
  assert.equal(cellLineCount("a"), 1);
  assert.equal(cellLineCount("a\n"), 1);
  assert.equal(cellLineCount(["a\n", "b\n", "c"]), 3);
  assert.equal(cellLineCount("a\n\nb"), 3);
  const code = (n: number) => ({ cell_type: "code", source: Array.from({ length: n }, (_, i) => `line ${i}\n`) });
  const nb = { cells: [{ cell_type: "markdown", source: "x\n".repeat(40) }, code(MAX_CELL_LINES), code(MAX_CELL_LINES + 1)] };
  const long = longCells(nb, "/somewhere/notebooks/09-x.ipynb");
  assert.deepEqual(long, [{ notebook: "09-x.ipynb", cell: 2, lines: 26 }]);
  assert.equal(describeLongCell(long[0]!), "09-x.ipynb: cell 2 has 26 lines (at most 25): move its logic into src/ and call it");
});

test("no code cell of a notebook is longer than 25 lines", () => {
  const notebooks = listNotebooks();
  assert.ok(notebooks.length >= 8, `found ${notebooks.length} notebooks`);
  const long = notebooks.flatMap((p) => longCells(readNotebook(p), p)).map((c) => describeLongCell(c));
  assert.deepEqual(long, []);
});
