// Lock-hook calls per pgbench -S transaction from the two series that guest.sh recorded:
// for every (30 s run, 10 s run) pair, Δrequests / Δtransactions (the fixed cost of starting the
// cluster's connections cancels), then their mean and range; the same for the spinlock and LWLock
// parts. Writes summary.json next to this file.
// usage: node data/runs/lock-ops-per-txn-20261130/analyse.mjs
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
function runs(series) {
  const dir = join(here, "vm", series, "runs");
  return readdirSync(dir).sort().map((id) => {
    const w = JSON.parse(readFileSync(join(dir, id, "result.json"), "utf8")).workloads[0];
    const c = w.sliceExtension?.countersDelta;
    if (!c) throw new Error(`${join(dir, id)}: expected slice-extension counters (patched server), found none`);
    return { id, transactions: w.metrics.transactionsProcessed, ...c, status: w.sliceExtension.status };
  });
}
const short = runs("d10");
const long = runs("d30");
const keys = ["requests", "spinlock", "lwlock", "grants", "yields", "revoked"];
const perTxn = {};
for (const k of keys) {
  const v = [];
  for (const l of long) for (const s of short) v.push((l[k] - s[k]) / (l.transactions - s.transactions));
  perTxn[k] = { mean: v.reduce((a, b) => a + b, 0) / v.length, min: Math.min(...v), max: Math.max(...v), pairs: v.length };
}
const summary = { kind: "slicelab-lock-ops-per-transaction", method: "(requests of a 30 s run − requests of a 10 s run) / (their transactions' difference), over all 30 s × 10 s pairs", runs: { d10: short, d30: long }, perTransaction: perTxn };
writeFileSync(join(here, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
for (const k of keys) console.log(`${k} per transaction: ${perTxn[k].mean.toFixed(2)} (range ${perTxn[k].min.toFixed(2)} … ${perTxn[k].max.toFixed(2)}, ${perTxn[k].pairs} pairs)`);
