import { execFileSync } from "node:child_process";
import { UserError } from "../util/errors.js";

/** The unprivileged system user that owns and runs the kit's PostgreSQL clusters. */
export const PG_USER = "slicelab";

let cached: { user: string; uid: number; gid: number } | undefined;

function lookup(user: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
  } catch {
    /* no such user */
  }
  return undefined;
}

/**
 * Returns the cluster user (`slicelab`), creating it as a system user without a
 * login shell when it is missing. PostgreSQL refuses to run as root, so every
 * cluster of the kit runs as this user.
 */
export async function ensurePgUser(): Promise<{ user: string; uid: number; gid: number }> {
  if (cached) return cached;
  let ids = lookup(PG_USER);
  if (!ids) {
    if (process.getuid?.() !== 0) {
      throw new UserError(
        `the system user "${PG_USER}" is missing and only root can create it: run \`sudo useradd --system --user-group --no-create-home --shell /usr/sbin/nologin ${PG_USER}\``,
      );
    }
    try {
      execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER], {
        stdio: ["ignore", "ignore", "pipe"],
      });
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new UserError(`cannot create the system user "${PG_USER}" with useradd (Debian package passwd): ${msg}`);
    }
    ids = lookup(PG_USER);
    if (!ids) throw new UserError(`useradd reported success but "id ${PG_USER}" still fails`);
  }
  cached = { user: PG_USER, ...ids };
  return cached;
}
