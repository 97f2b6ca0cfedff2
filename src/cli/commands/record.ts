import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type Command, withSubcommands } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { repoRoot } from "../../util/paths.js";
import { writeFileAtomic } from "../../util/fs.js";
import { checkSums, fieldText, listRecords, readRecord, RECORD_FILE, recordText, writeRecord } from "../../record/format.js";
import { deriveRecord } from "../../record/convert.js";
import { recordIndex } from "../../record/index-md.js";

const usage = `usage: slicelab record list [--runs DIR] [--json]
       slicelab record show DIR [--json]
       slicelab record convert [--runs DIR] [--write] [--json]
       slicelab record index [--runs DIR] (--write | --check)

Records are the directories under data/runs/ (or --runs DIR): each holds
record.json in the one format (src/record/format.ts) beside its raw files.

  list     every record: study, start, where it ran, title
  show     one record's envelope (fields it does not know say why)
  convert  derive record.json for every directory that has none, from its own
           provenance files (provenance.json, series.json, summary.json, README.md);
           records that have one are left alone; without --write, prints what it would write
  index    data/runs/README.md from every record and the places citing it
           (REPRODUCE.md, README.md, notebooks); --check exits 1 when the file differs`;

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
  const done: { dir: string; study: string; unknown: string[] }[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!statSync(dir).isDirectory() || existsSync(join(dir, RECORD_FILE))) continue;
    // A study directory of new-format records (data/runs/STUDY/STAMP/) is not itself a record.
    const subs = readdirSync(dir).filter((s) => statSync(join(dir, s)).isDirectory());
    if (subs.length > 0 && subs.every((s) => existsSync(join(dir, s, RECORD_FILE)))) continue;
    const rec = deriveRecord(dir);
    const text = recordText(rec);
    const unknowns = Object.entries(JSON.parse(text) as Record<string, unknown>).flatMap(([k, v]) =>
      typeof v === "object" && v !== null && !Array.isArray(v)
        ? "unknown" in v ? [k] : Object.entries(v).filter(([, x]) => typeof x === "object" && x !== null && "unknown" in x).map(([s]) => `${k}.${s}`)
        : [],
    );
    if (values.write) writeRecord(dir, rec);
    done.push({ dir: relative(root, dir), study: rec.study, unknown: unknowns });
  }
  if (values.json) printJson(done);
  else {
    for (const d of done) process.stdout.write(`${values.write ? "wrote" : "would write"} ${d.dir}/${RECORD_FILE} (study ${d.study}; unknown: ${d.unknown.join(", ") || "none"})\n`);
    if (done.length === 0) process.stdout.write("every directory already has a record.json\n");
  }
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
    writeFileAtomic(file, text);
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

export const recordCommand: Command = withSubcommands("record", "the records under data/runs/: list, show, convert to the one format, index", usage, { list, show, convert, index });
