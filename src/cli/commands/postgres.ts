import type { Command } from "../command.js";
import { parseCommandArgs, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { resolveSource, type PgSource } from "../../postgres/source.js";
import { checkPatchSeries, patchHash, readPatchSeries } from "../../postgres/patch.js";
import { BUILD_VARIANTS, buildPostgres, type BuildVariant } from "../../postgres/build.js";

const usage = [
  "usage: slicelab postgres fetch|patch|build [--version 15|18] [--source DIR|TARBALL]",
  "                         [--variant baseline|patched|both] [--jobs N] [--force] [--json]",
  "",
  "PostgreSQL source builds with and without the kit's time-slice-extension patch",
  "(kernel-patches/postgresql/<major>/).",
  "",
  "  fetch   download (once) and unpack the source: Debian sid's postgresql-18 or",
  "          bookworm's postgresql-15 through the kit's private apt configuration,",
  "          or the tarball/directory given with --source; prints where it is",
  "  patch   check (patch --dry-run, no fuzz) that the patch applies to that source;",
  "          on failure names the rejected hunk (exit 2); the source is not modified",
  "  build   build and install the variant(s) (default: both) from the same source:",
  "          baseline = unpatched, patched = with the patch; configure options and",
  "          the patch hash are recorded in PREFIX/slicelab-build.json. A finished",
  "          build is reused unless --force. Uses ccache when installed, make -j2.",
  "",
  "options:",
  "  --version 15|18   major version to fetch from Debian (default 18)",
  "  --source PATH     a PostgreSQL tarball or source directory instead of Debian's",
  "  --variant V       baseline, patched or both (build only; default both)",
  "  --jobs N          make -jN (default 2)",
  "  --force           rebuild even when the prefix holds a finished build",
  "  --json            print the result as JSON",
  "",
  "examples:",
  "  slicelab postgres build --version 18 --json",
  "  slicelab postgres patch --version 15",
  "  slicelab postgres build --source ~/src/postgresql-18.6.tar.bz2 --variant patched",
].join("\n");

function sourceJson(src: PgSource): Record<string, unknown> {
  return { version: src.version, major: src.major, dir: src.dir, key: src.key, origin: src.origin };
}

export const postgresCommand: Command = {
  name: "postgres",
  summary: "fetch, patch and build PostgreSQL (baseline and time-slice-extension patched)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs("postgres", argv, {
      version: { type: "string" },
      source: { type: "string" },
      variant: { type: "string" },
      jobs: { type: "string" },
      force: { type: "boolean" },
      json: { type: "boolean" },
    });
    const action = positionals[0];
    if (action === undefined || !["fetch", "patch", "build"].includes(action) || positionals.length > 1) {
      throw new UserError(`slicelab postgres: expected one action (fetch, patch or build), found ${positionals.length === 0 ? "none" : JSON.stringify(positionals.join(" "))} (see \`slicelab postgres --help\`)`);
    }
    if (values.version !== undefined && !/^\d+$/.test(values.version)) {
      throw new UserError(`--version: expected a major version such as 15 or 18, found ${JSON.stringify(values.version)}`);
    }
    const log = values.json ? () => {} : (line: string) => process.stderr.write(`slicelab postgres: ${line}\n`);
    const src = await resolveSource({ major: values.version, source: values.source }, log);

    if (action === "fetch") {
      if (values.json) printJson(sourceJson(src));
      else process.stdout.write(`PostgreSQL ${src.version} source: ${src.dir}\n`);
      return 0;
    }
    if (action === "patch") {
      const checked = await checkPatchSeries(src.dir, src.major);
      const series = readPatchSeries(src.major);
      const result = {
        source: sourceJson(src),
        patches: checked.patches,
        hash: patchHash(src.major),
        subjects: series.map((p) => p.subject),
        files: series.flatMap((p) => p.files.map((f) => f.path)),
        hunks: checked.hunks,
        applies: true,
      };
      if (values.json) printJson(result);
      else process.stdout.write(`${checked.patches.length} patch(es), ${checked.hunks} hunks: apply cleanly to PostgreSQL ${src.version} (${src.dir})\n`);
      return 0;
    }
    const variantArg = values.variant ?? "both";
    let variants: BuildVariant[];
    if (variantArg === "both") variants = [...BUILD_VARIANTS];
    else if ((BUILD_VARIANTS as readonly string[]).includes(variantArg)) variants = [variantArg as BuildVariant];
    else throw new UserError(`--variant: expected baseline, patched or both, found ${JSON.stringify(variantArg)}`);
    let jobs: number | undefined;
    if (values.jobs !== undefined) {
      jobs = Number(values.jobs);
      if (!Number.isInteger(jobs) || jobs < 1) throw new UserError(`--jobs: expected a positive integer, found ${JSON.stringify(values.jobs)}`);
    }
    const builds = [];
    for (const v of variants) {
      const b = await buildPostgres(src, v, { jobs, force: values.force, log });
      builds.push({ variant: v, prefix: b.prefix, binDir: b.binDir, reused: b.reused, patch: b.record.patch?.hash ?? null, buildSeconds: b.record.buildSeconds });
      if (!values.json) process.stdout.write(`${v}: ${b.binDir}${b.reused ? " (reused)" : ""}\n`);
    }
    if (values.json) printJson({ source: sourceJson(src), builds });
    return 0;
  },
};
