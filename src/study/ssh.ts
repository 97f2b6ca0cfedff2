import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { repoRoot, workDir } from "../util/paths.js";
import { checkSums, readRecord, utcStamp, writeRecord, writeSums } from "../record/format.js";
import { kitInfo } from "../record/provenance.js";

/**
 * `study run NAME --ssh HOST`: the kit is copied to HOST with rsync (over OpenSSH), the study
 * runs there with the same arguments, and its record comes back into the local runs directory
 * after its SHA256SUMS are checked. Resuming works as on the host: the remote record directory
 * is fixed per study (REMOTE/.work/study-remote/NAME) until its record is fetched.
 */

export interface SshOptions {
  host: string;
  port?: number;
  key?: string;
  /** Extra `-o NAME=VALUE` options for ssh (e.g. StrictHostKeyChecking=no). */
  options: string[];
  /** The kit's directory on HOST (relative paths are below the remote home). */
  remoteDir: string;
}

export function sshArgv(o: SshOptions): string[] {
  return [
    "-o", "BatchMode=yes",
    ...(o.port ? ["-p", String(o.port)] : []),
    ...(o.key ? ["-i", o.key, "-o", "IdentitiesOnly=yes"] : []),
    ...o.options.flatMap((x) => ["-o", x]),
  ];
}

function shq(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

function rsync(o: SshOptions, args: string[], log: (s: string) => void): void {
  const e = ["ssh", ...sshArgv(o)].map(shq).join(" ");
  const r = spawnSync("rsync", ["-a", "--delete", "-e", e, ...args], { encoding: "utf8" });
  if (r.error) throw new UserError(`rsync not found (Debian package rsync): ${r.error.message}`);
  if (r.status !== 0) throw new UserError(`rsync ${args.join(" ")}: exit ${r.status}: ${(r.stderr ?? "").trim().split("\n").slice(-3).join(" / ")}`);
  log(`rsync ${args.slice(-2).join(" → ")}: done`);
}

function ssh(o: SshOptions, command: string, inherit: boolean): number {
  const r = spawnSync("ssh", [...sshArgv(o), o.host, command], { stdio: inherit ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (r.error) throw new UserError(`ssh not found (Debian package openssh-client): ${r.error.message}`);
  if (r.status === 255) throw new UserError(`ssh ${o.host}: cannot connect or log in (exit 255)${inherit ? "" : `: ${(r.stderr ?? "").trim().split("\n").pop()}`}`);
  return r.status ?? 1;
}

/** Copies the kit to HOST and prints the plan there (`study run NAME --dry-run`, with HOST's checks); returns its exit status. */
export function dryRunOverSsh(study: string, passArgs: string[], o: SshOptions, log: (s: string) => void): number {
  const remote = o.remoteDir.replace(/\/+$/, "");
  ssh(o, `mkdir -p ${shq(remote)}`, false);
  rsync(o, ["--exclude", "/.git", "--exclude", "/.work", "--exclude", "/data/runs", `${repoRoot()}/`, `${o.host}:${remote}/`], log);
  return ssh(o, `cd ${shq(remote)} && node bin/slicelab.js study run ${[study, ...passArgs, "--dry-run", "--out", `${remote}/.work/study-remote/${study}`].map(shq).join(" ")}`, true);
}

/** Runs the study remotely; returns the local record directory, or undefined when the remote run did not finish. */
export function runOverSsh(study: string, passArgs: string[], runsRoot: string, o: SshOptions, log: (s: string) => void, localArgv: string[]): string | undefined {
  const t0 = Date.now();
  const remote = o.remoteDir.replace(/\/+$/, "");
  const kit = kitInfo();
  ssh(o, `mkdir -p ${shq(remote)}`, false);
  rsync(o, ["--exclude", "/.git", "--exclude", "/.work", "--exclude", "/data/runs", `${repoRoot()}/`, `${o.host}:${remote}/`], log);
  const out = `${remote}/.work/study-remote/${study}`;
  const cmd = `cd ${shq(remote)} && node bin/slicelab.js study run ${[study, ...passArgs, "--out", out].map(shq).join(" ")}`;
  log(`ssh ${o.host}: ${cmd}`);
  const status = ssh(o, cmd, true);
  if (status === 1) return undefined;
  if (status !== 0) throw new UserError(`study ${study} on ${o.host}: exit ${status} (the record, if any, stays in ${o.host}:${out})`, status);
  const local = join(workDir(), "study-ssh", `${study}-${utcStamp()}`);
  mkdirSync(local, { recursive: true });
  rsync(o, [`${o.host}:${out}/`, `${local}/`], log);
  const problems = checkSums(local);
  if (problems.length) throw new UserError(`the record fetched from ${o.host}:${out} does not match its checksums:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  const rec = readRecord(local);
  const stamp = typeof rec.started === "string" ? utcStamp(new Date(rec.started)) : utcStamp();
  const dest = join(runsRoot, rec.study, stamp);
  if (existsSync(dest)) throw new UserError(`${dest}: already exists`);
  mkdirSync(join(runsRoot, rec.study), { recursive: true });
  cpSync(local, dest, { recursive: true });
  rmSync(local, { recursive: true, force: true });
  // The remote copy has no .git: the kit is the commit it was copied from.
  rec.kit = { commit: kit.commit ?? { unknown: "the local checkout's commit is unknown" }, dirty: kit.dirty ?? { unknown: "git status failed locally" } };
  rec.environment = { kind: "host", detail: `${o.host} over ssh (the kit copied there with rsync; ${Math.round((Date.now() - t0) / 1000)} s in all)${typeof rec.environment === "object" && "detail" in rec.environment ? `; there: ${rec.environment.detail}` : ""}` };
  rec.command = localArgv;
  rec.notes = [...rec.notes, `run on ${o.host} in ${remote} with --out ${out}; kit commit and dirty flag are the local checkout's, from which the copy was made`];
  writeRecord(dest, rec);
  writeSums(dest);
  ssh(o, `mv ${shq(out)} ${shq(`${out}-fetched-${stamp}`)}`, false);
  return dest;
}
