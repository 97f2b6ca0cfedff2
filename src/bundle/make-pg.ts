/**
 * `slicelab bundle STUDY` for a PostgreSQL series study (dipietro-2026-metal): the builds with
 * their loader, the plans and the workloads (src/bundle/postgres.ts), the static slice probe (the
 * path: native or reference), run.sh (src/bundle/run-sh.ts, with the PostgreSQL checks of
 * src/bundle/pg-sh.ts), MANIFEST.json and BUNDLE.SHA256SUMS, tarred with gzip (the far side needs
 * only gzip to extract it) and refused over 64 MiB.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { kitInfo } from "../bench/provenance.js";
import { utcStamp } from "../record/format.js";
import type { Study } from "../study/study.js";
import { UserError } from "../util/errors.js";
import { repoRoot } from "../util/paths.js";
import { BUNDLE_FORMAT, type PgBundleManifest } from "./format.js";
import type { BundleOptions } from "./make.js";
import { BUNDLE_MAX_BYTES, buildStaticProbe } from "./make.js";
import { writePgBundle } from "./postgres.js";
import { runScript } from "./run-sh.js";

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

export async function makePgBundle(study: Study, o: BundleOptions): Promise<{ path: string; bytes: number; manifest: PgBundleManifest; name: string }> {
  if (o.withVm) throw new UserError("--with-vm: the kernel-and-QEMU path is not built into PostgreSQL bundles; make the bundle without it");
  const probe = await buildStaticProbe();
  const stamp = utcStamp();
  const name = `slicelab-${study.name}-${stamp}`;
  const stage = mkdtempSync(join(tmpdir(), "slicelab-bundle-"));
  try {
    const root = join(stage, name);
    mkdirSync(join(root, "bin"), { recursive: true });
    copyFileSync(probe.path, join(root, "bin", "slice-probe"));
    chmodSync(join(root, "bin", "slice-probe"), 0o755);
    const pg = writePgBundle(root, study, { blocks: o.blocks, params: o.params, seed: o.seed });
    const kit = kitInfo();
    const manifest: PgBundleManifest = {
      kind: "postgres",
      format: BUNDLE_FORMAT,
      id: "",
      study: study.name,
      title: study.title,
      made: { kitCommit: kit.commit ?? "unknown", dirty: kit.dirty, at: new Date().toISOString(), host: hostname() },
      probe: { sourceSha256: probe.sourceSha256, static: probe.static },
      seed: o.seed ?? study.design.seed ?? 1,
      plans: pg.plans.map((p) => p.plan),
      hugePages: 0,
      memoryKiB: pg.memoryKiB,
      diskKiB: pg.diskKiB,
      estimateRunS: pg.estimateRunS,
      postgres: pg.postgres,
      files: [],
    };
    const files = ["run.sh", "bin/slice-probe", ...pg.files];
    const idSource = files.filter((f) => f !== "run.sh").map((f) => sha256(readFileSync(join(root, f)))).join("\n");
    manifest.id = sha256(idSource + runScript({ ...manifest, id: "0".repeat(16) })).slice(0, 16);
    writeFileSync(join(root, "run.sh"), runScript(manifest));
    chmodSync(join(root, "run.sh"), 0o755);
    manifest.files = [...files, "MANIFEST.json"];
    writeFileSync(join(root, "MANIFEST.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(root, "BUNDLE.SHA256SUMS"), manifest.files.map((f) => `${sha256(readFileSync(join(root, f)))}  ${f}`).join("\n") + "\n");
    const out = resolve(o.out ?? join(repoRoot(), "bundles", `${name}.tar.gz`));
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    execFileSync("tar", ["-C", stage, "--owner=0", "--group=0", "-czf", tmp, name]);
    const bytes = statSync(tmp).size;
    if (bytes > BUNDLE_MAX_BYTES) {
      rmSync(tmp);
      throw new UserError(`${basename(out)}: ${bytes} bytes, over the bundle limit of ${BUNDLE_MAX_BYTES}`);
    }
    renameSync(tmp, out);
    return { path: out, bytes, manifest, name };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
