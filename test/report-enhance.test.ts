import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { claimAnchor, enhanceHtml, isStrayOutput, loreUrl } from "../src/report/enhance.js";
import { repoRoot } from "../src/util/paths.js";

const cell = (code: string, out: string) =>
  `<div class="cell border-box-sizing code_cell rendered"><div class="input"><div class="inner_cell"><div class="input_area"><div class="highlight"><pre>${code}</pre></div></div></div></div>` +
  `<div class="output_wrapper"><div class="output">${out}</div></div></div>`;
const stdout = (t: string) => `<div class="output_area"><div class="output_subarea output_stream output_stdout output_text"><pre>${t}</pre></div></div>`;

test("isStrayOutput: a bare scalar echoed from a cell that never prints is stray; printed output and sentences are not", () => {
  assert.equal(isStrayOutput('recordValue("vm_accel", boot.accel);', { stream: "stdout", text: "tcg\n" }), true);
  assert.equal(isStrayOutput("recordValue('x', n);", { stream: "stdout", text: "77\n" }), true);
  assert.equal(isStrayOutput("recordValue('x', ok);", { stream: "stdout", text: "true\n" }), true);
  assert.equal(isStrayOutput("recordValue('x', m);", { stream: "stdout", text: "41.3\n" }), true);
  assert.equal(isStrayOutput("console.log(6 * 7);", { stream: "stdout", text: "42\n" }), false, "the cell prints it on purpose");
  assert.equal(isStrayOutput("f();", { stream: "stdout", text: "built in 41.3 s\n" }), false, "a sentence is output");
  assert.equal(isStrayOutput("f();", { stream: "stdout", text: "1\n2\n" }), false, "several lines are output");
  assert.equal(isStrayOutput("f();", { stream: "stderr", text: "77" }), false, "stderr is never stray");
});

test("enhanceHtml folds code after its output, drops stray outputs, keeps printed ones", () => {
  const html = cell("recordValue(&quot;n&quot;, 77);", stdout("77\n")) + cell("console.log(42);", stdout("42\n"));
  const e = enhanceHtml(html, { repoRoot: repoRoot(), pageDir: join(repoRoot(), "reports") });
  assert.equal(e.foldedCells, 2);
  assert.equal(e.strayOutputs, 1);
  assert.ok(!e.html.includes("<pre>77"), "the stray 77 is gone");
  assert.ok(e.html.includes("<pre>42"), "printed output stays");
  assert.equal(e.html.match(/<details class="sl-code"><summary>show code \(1 line\)<\/summary>/g)?.length, 2);
  assert.ok(e.html.indexOf("<pre>42") < e.html.lastIndexOf("<details"), "output before code");
  assert.ok(!/<details[^>]* open/.test(e.html), "collapsed by default");
});

test("enhanceHtml links data/ paths that exist (relative to the page), reports those that do not, links ledger ids, URLs and Message-IDs", () => {
  const root = repoRoot();
  const html =
    "<p>See data/runs/mechanism-2026/, data/published/rostedt-2023/reported-summary.raw.txt:1 and data/runs/vm-micro/20261130T02* but not data/runs/no-such-record-xyz.</p>" +
    "<p>Run <code>slicelab bench run x --out data/runs/x-…</code>.</p>" +
    "<p>Verdict of rostedt-2023/smaller-std-dev; post &lt;20260403191942.21410-1-dipiets@amazon.it&gt; at https://lwn.net/Articles/1/.</p>" +
    '<p><a href="mailto:20260403191942.21410-1-dipiets@amazon.it">x</a></p>' +
    "<svg><text>data/runs/nothing-here</text></svg>";
  const e = enhanceHtml(html, { repoRoot: root, pageDir: join(root, "reports", "notebooks"), claimIds: new Set(["rostedt-2023/smaller-std-dev"]), indexHref: "../index.html" });
  assert.ok(e.html.includes('<a href="../../data/runs/mechanism-2026" class="sl-path">data/runs/mechanism-2026/</a>'), e.html);
  assert.ok(e.html.includes('<a href="../../data/published/rostedt-2023/reported-summary.raw.txt" class="sl-path">data/published/rostedt-2023/reported-summary.raw.txt:1</a>'));
  assert.ok(e.html.includes('<a href="../../data/runs/vm-micro" class="sl-path">data/runs/vm-micro/20261130T02*</a>'), "a name pattern links to its directory");
  assert.deepEqual(e.missingPaths, ["data/runs/no-such-record-xyz"], "a path that is not in the clone is reported, not linked");
  assert.ok(!e.html.includes('href="../../data/runs/no-such'));
  assert.ok(!e.html.includes("data/runs/x-…</a>"), "a command's --out destination is not a mention");
  assert.ok(e.html.includes(`<a href="../index.html#${claimAnchor("rostedt-2023/smaller-std-dev")}" class="sl-claim-ref">rostedt-2023/smaller-std-dev</a>`));
  assert.ok(e.html.includes(`href="${loreUrl("20260403191942.21410-1-dipiets@amazon.it")}"`));
  assert.equal(loreUrl("20260403191942.21410-1-dipiets@amazon.it"), "https://lore.kernel.org/r/20260403191942.21410-1-dipiets@amazon.it");
  assert.ok(!e.html.includes("mailto:"), "the Message-ID is a lore link, not mailto");
  assert.ok(e.html.includes('<a href="https://lwn.net/Articles/1/" class="sl-url">https://lwn.net/Articles/1/</a>'));
  assert.ok(e.html.includes("<text>data/runs/nothing-here</text>"), "text inside figures is left alone");
});
