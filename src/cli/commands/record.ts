import { existsSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type Command, withSubcommands } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { repoRoot } from "../../util/paths.js";
import { checkSums, fieldText, listRecords, readRecord, RECORD_FILE, recordText } from "../../record/format.js";
import { deriveEnvelopes } from "../../record/convert.js";
import { convertRecords } from "../../record/move.js";
import { recordIndex, writeRecordIndex } from "../../record/index-md.js";
import { studyNames } from "../../study/study.js";
import { rederiveVmEnvelope } from "../../study/drivers/vm-envelope.js";

const usage = `usage: slicelab record list [--runs DIR] [--json]
       slicelab record show DIR [--json]
       slicelab record convert [--runs DIR] [--write] [--json]
       slicelab record index [--runs DIR] (--write | --check)
       slicelab record vm-envelope DIR…

Records are the directories under data/runs/ (or --runs DIR): each holds
record.json in the one format (src/record/format.ts) beside its raw files.

  list     every record: study, start, where it ran, title
  show     one record's envelope (fields it does not know say why)
  convert  derive record.json for every directory that has none, from its own
           provenance files (provenance.json, series.json, summary.json, README.md);
           move every record to data/runs/<study>/<stamp>/ (record.json keeps
           formerPath), remove code from under data/ (naming its replacement), rewrite
           every citation of an old path (docs, notebooks, src, test, studies) and
           regenerate the index; re-running changes nothing. Without --write, prints the plan
  index    data/runs/README.md from every record and the places citing it
           (REPRODUCE.md, README.md, notebooks); --check exits 1 when the file differs
  vm-envelope  a VM experiment's envelope (environment, kernel) made again from its out/provenance.json,
           for study records written before drivers said where they ran`;

function runsRoot(v: string | undefined): string {
  const root = resolve(v ?? join(repoRoot(), "data", "runs"));
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UserError(`--runs ${root}: no such directory`);
  return root;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("record", argv, { json: { type: "boolean" }, runs: { type: "string" } });
  if (positionals.length) throw new UserError(`record list takes no arguments, found "${positionals[0]}"`);
  const root = runsRoot(values.runs);
  const rows = listRecords(root).map((r) => ({
    dir: relative(root, r.dir),
    study: r.record.study,
    started: r.record.started,
    environment: r.record.environment,
    title: r.record.title,
  }));
  if (values.json) printJson(rows);
  else for (const r of rows) process.stdout.write(`${r.dir}  ${r.study}  ${fieldText(r.started)}  ${r.title}\n`);
  return 0;
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("record", argv, { json: { type: "boolean" } });
  if (positionals.length !== 1) throw new UserError("record show expects one record DIR");
  const dir = resolve(positionals[0] as string);
  const rec = readRecord(dir);
  if (values.json) {
    process.stdout.write(recordText(rec));
    return 0;
  }
  const lines: [string, unknown][] = [
    ["study", rec.study], ["title", rec.title], ["environment", rec.environment], ["command", rec.command],
    ["kit commit", rec.kit.commit], ["kit dirty", rec.kit.dirty], ["host", rec.host.hostname], ["CPU", rec.host.cpuModel],
    ["CPUs", rec.host.cpus], ["kernel", rec.kernel.release], ["kernel config sha256", rec.kernel.configSha256],
    ["preemption", rec.kernel.preemptMode], ["slice extension", rec.kernel.sliceExtension], ["glibc", rec.glibc],
    ["PostgreSQL", rec.postgres.version], ["PostgreSQL build", rec.postgres.build], ["patch", rec.postgres.patch],
    ["started", rec.started], ["ended", rec.ended], ["also running", rec.concurrent], ["analysis", rec.analysis],
  ];
  const text = (k: string, v: unknown): string => {
    if (k === "environment" && typeof v === "object" && v !== null && "kind" in v) return `${(v as unknown as { kind: string }).kind}: ${(v as unknown as { detail: string }).detail}`;
    if (k === "analysis" && typeof v === "object" && v !== null && "verdict" in v) {
      const a = v as { verdict: string; reason: string; file: string };
      return `${a.verdict} — ${a.reason} (${a.file})`;
    }
    return fieldText(v as never);
  };
  for (const [k, v] of lines) process.stdout.write(`${k.padEnd(22)} ${text(k, v)}\n`);
  const sums = existsSync(join(dir, "SHA256SUMS")) ? checkSums(dir) : null;
  process.stdout.write(`${"checksums".padEnd(22)} ${sums === null ? "none (a record converted in place)" : sums.length === 0 ? "SHA256SUMS matches" : sums.join("; ")}\n`);
  return 0;
}

async function convert(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("record", argv, { json: { type: "boolean" }, runs: { type: "string" }, write: { type: "boolean" } });
  if (positionals.length) throw new UserError(`record convert takes no arguments, found "${positionals[0]}"`);
  const root = runsRoot(values.runs);
  const report = convertRecords(repoRoot(), root, new Set(studyNames()), { write: values.write === true, derive: deriveEnvelopes, index: recordIndex });
  if (values.json) {
    printJson(report);
    return 0;
  }
  const verb = (done: string, would: string) => (values.write ? done : would);
  for (const d of report.derived) process.stdout.write(`${verb("wrote", "would write")} ${d.dir}/${RECORD_FILE} (study ${d.study}; unknown: ${d.unknown.join(", ") || "none"})\n`);
  const moves = report.plan.moves.filter((m) => m.from !== m.to);
  for (const m of moves) process.stdout.write(`${verb("moved", "would move")} ${m.from} → ${m.to} (stamp: ${m.rule})\n`);
  for (const f of report.plan.files) process.stdout.write(`${verb("moved", "would move")} ${f.from} → ${f.to}\n`);
  for (const c of report.plan.code) process.stdout.write(`${verb("removed", "would remove")} code ${c.record}/${c.file} (replaced by ${c.replacement})\n`);
  for (const f of report.rewritten) process.stdout.write(`${verb("rewrote", "would rewrite")} citations in ${f}\n`);
  process.stdout.write(`${report.plan.moves.length} records, ${moves.length} ${verb("moved", "to move")}, ${report.plan.code.length} code files, ${report.rewritten.length} citing files${values.write ? "; data/runs/README.md regenerated" : " (run with --write)"}\n`);
  return 0;
}

async function index(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("record", argv, { runs: { type: "string" }, write: { type: "boolean" }, check: { type: "boolean" } });
  if (positionals.length) throw new UserError(`record index takes no arguments, found "${positionals[0]}"`);
  if (values.write === values.check) throw new UserError("record index expects exactly one of --write or --check");
  const root = runsRoot(values.runs);
  const text = recordIndex(repoRoot(), root);
  const file = join(root, "README.md");
  if (values.write) {
    writeRecordIndex(root, text);
    process.stdout.write(`wrote ${file}\n`);
    return 0;
  }
  const current = existsSync(file) ? readFileSync(file, "utf8") : null;
  if (current === text) {
    process.stdout.write(`${file} is up to date\n`);
    return 0;
  }
  process.stdout.write(`${file} ${current === null ? "is missing" : "differs from what `slicelab record index --write` writes"}\n`);
  return 1;
}

async function vmEnvelope(argv: string[]): Promise<number> {
  const { positionals } = parseCommandArgs("record", argv, {});
  if (positionals.length === 0) throw new UserError("record vm-envelope expects one or more record directories");
  for (const d of positionals) {
    const r = rederiveVmEnvelope(resolve(d));
    process.stdout.write(`${d}: ${r.environment}; kernel ${r.kernel}\n`);
  }
  return 0;
}

export const recordCommand: Command = withSubcommands("record", "the records under data/runs/: list, show, convert to the one format, index, vm-envelope", usage, { list, show, convert, index, "vm-envelope": vmEnvelope });
