import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";

/** The PostgreSQL major version Debian 12 ships, used when no other is asked for. */
export const DEFAULT_PG_MAJOR = 15;

/** The programs a bin directory must hold for the kit to run a cluster in it. */
export const SERVER_PROGRAMS = ["postgres", "pg_ctl", "initdb"] as const;

/** Names the first missing server program of a bin directory, or undefined when all are there. */
export function missingServerProgram(binDir: string): string | undefined {
  return SERVER_PROGRAMS.find((p) => !existsSync(join(binDir, p)));
}

/**
 * Debian's PostgreSQL bin directory for a major version (`/usr/lib/postgresql/15/bin`),
 * installing `postgresql-MAJOR` with apt when it is missing.
 */
export function debianBinDir(major: number = DEFAULT_PG_MAJOR): string {
  const dir = `/usr/lib/postgresql/${major}/bin`;
  if (missingServerProgram(dir) === undefined) return dir;
  const pkg = `postgresql-${major}`;
  if (process.getuid?.() !== 0) {
    throw new UserError(`${dir} lacks the PostgreSQL server: install the Debian package ${pkg} (\`sudo apt-get install ${pkg}\`)`);
  }
  process.stderr.write(`slicelab: installing the Debian package ${pkg} (PostgreSQL ${major} server)\n`);
  try {
    execFileSync("apt-get", ["install", "-y", "-q", "--no-install-recommends", pkg, `postgresql-client-${major}`], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UserError(`apt-get install ${pkg} failed: ${msg.split("\n").slice(0, 4).join(" ")}`);
  }
  const missing = missingServerProgram(dir);
  if (missing !== undefined) throw new UserError(`after installing ${pkg}, ${join(dir, missing)} is still missing`);
  return dir;
}

/** `postgres --version` of a bin directory, e.g. "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)". */
export function serverVersion(binDir: string): string {
  try {
    return execFileSync(join(binDir, "postgres"), ["--version"], { encoding: "utf8" }).trim();
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UserError(`${join(binDir, "postgres")} --version failed: ${msg}`);
  }
}

/** The major version number in a `postgres --version` line (15 for "… 15.18 …", 18 for "… 18devel"). */
export function majorOf(versionLine: string): number {
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(versionLine);
  if (!m) throw new UserError(`expected "postgres (PostgreSQL) N…" from postgres --version, found ${JSON.stringify(versionLine)}`);
  return Number(m[1]);
}
