import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { UserError } from "../util/errors.js";
import { addExitHook, addShutdownHook } from "../util/shutdown.js";
import { workDir } from "../util/paths.js";
import { majorOf, missingServerProgram, serverVersion } from "./binaries.js";
import { ensurePgUser, PG_USER } from "./user.js";

export interface ClusterOptions {
  /** A PostgreSQL bin directory (postgres, pg_ctl, initdb, psql). */
  binDir: string;
  /** The cluster's name: its directory is workDir()/clusters/NAME. */
  name: string;
  /** Server settings written to the cluster's include file before every start. */
  settings?: Record<string, string | number | boolean>;
  /** Extra environment for the server (e.g. GLIBC_TUNABLES). */
  env?: Record<string, string>;
  /**
   * The port number, which names the socket file (`SOCKETDIR/.s.PGSQL.PORT`); the server listens
   * on no TCP address. A number free on 127.0.0.1 is chosen when absent.
   */
  port?: number;
}

export interface Cluster {
  name: string;
  binDir: string;
  dataDir: string;
  port: number;
  socketDir: string;
  logFile: string;
  /** The extra environment the server was started with (ClusterOptions.env). */
  env: Record<string, string>;
  /** Runs `psql -XAtc SQL` as the cluster user and returns its output without the final newline. */
  query(sql: string, db?: string): Promise<string>;
  /** Stops the server: `pg_ctl stop -m fast`, then `-m immediate`, then SIGKILL. Idempotent. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
}

// Shutdown hooks live in src/util/shutdown.ts (collectors and the benchmark runner use them
// too); re-exported here for the callers that import them with the cluster.
export { addShutdownHook, isShuttingDown } from "../util/shutdown.js";
addExitHook(() => {
  // Last resort when the process exits without having stopped its clusters.
  for (const c of liveClusters.values()) stopSync(c.binDir, c.dataDir);
});

// ---------------------------------------------------------------------------

interface LiveCluster {
  binDir: string;
  dataDir: string;
}
const liveClusters = new Map<string, LiveCluster>();

/** A TCP port on 127.0.0.1 that is free right now (the kernel picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The directory of a named cluster: workDir()/clusters/NAME. */
export function clusterDir(name: string): string {
  return join(workDir(), "clusters", name);
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** What unreachableAncestor needs to know of a directory. */
export interface DirMode {
  mode: number;
  uid: number;
  gid: number;
}

/**
 * The first directory on the way from / to `path` that a process with uid/gid may not pass
 * through (no search permission for it as owner, group or other), or undefined when every one lets
 * it through. The cluster user must reach its data directory under the kit's work directory; a
 * clone in a 0700 directory (mktemp -d, a home directory) stops initdb with a bare "Permission denied".
 */
export function unreachableAncestor(
  path: string,
  uid: number,
  gid: number,
  stat: (p: string) => DirMode = (p) => statSync(p),
): { path: string; mode: number; uid: number } | undefined {
  const chain: string[] = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    chain.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of chain) {
    const st = stat(p);
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return { path: p, mode: st.mode & 0o7777, uid: st.uid };
  }
  return undefined;
}

/** Runs a program as the cluster user (or as ourselves when asUser is false) and collects its output. */
function run(
  file: string,
  args: string[],
  opts: { asUser?: { uid: number; gid: number }; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      uid: opts.asUser?.uid,
      gid: opts.asUser?.gid,
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (err) => reject(new UserError(`cannot run ${file}: ${err.message}`)));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The environment of programs run as the cluster user: a clean one plus the kit's tags and the extras. */
function userEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USER: PG_USER,
    LOGNAME: PG_USER,
    LANG: "C.UTF-8",
  };
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith("SLICELAB_") && v !== undefined) env[k] = v;
  return { ...env, ...extra };
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True when the process exists and is not a zombie (an exited child that its parent, often PID 1, has not reaped yet). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
const alive = processAlive;

function stopSync(binDir: string, dataDir: string): void {
  const ids = { uid: uidOf(), gid: gidOf() };
  spawnSync(join(binDir, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "-t", "10", "stop"], {
    ...ids,
    stdio: "ignore",
    env: userEnv(dataDir),
  });
  const pid = postmasterPid(dataDir);
  if (pid !== undefined && alive(pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
}

let userIds: { uid: number; gid: number } | undefined;
function uidOf(): number {
  return userIds?.uid ?? 0;
}
function gidOf(): number {
  return userIds?.gid ?? 0;
}

/** Formats one setting for postgresql.conf: numbers bare, booleans on/off, strings single-quoted. */
export function confValue(v: string | number | boolean): string {
  if (typeof v === "boolean") return v ? "on" : "off";
  if (typeof v === "number") return String(v);
  return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const SETTING_RE = /^[A-Za-z_][A-Za-z0-9_.]*$/;

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Creates (first time: initdb) and starts a PostgreSQL cluster under
 * workDir()/clusters/NAME as the unprivileged user `slicelab`. It listens only on a
 * Unix socket in the cluster's own `sock/` directory, mode 0700 and owned by the cluster user,
 * so that only that user and root (the kit) can connect: the cluster trusts whoever reaches
 * the socket (initdb --auth=trust), and no TCP address is open to other local users.
 * The server log is appended to `postgres.log` in the cluster directory; settings
 * go to `slicelab.conf` in the data directory, rewritten on every start.
 * The cluster is stopped on SIGINT/SIGTERM and, as a last resort, at exit.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  if (!NAME_RE.test(opts.name)) {
    throw new UserError(`cluster name: expected letters, digits, ".", "_" or "-", found ${JSON.stringify(opts.name)}`);
  }
  const missing = missingServerProgram(opts.binDir);
  if (missing !== undefined) {
    throw new UserError(`${opts.binDir}: expected a PostgreSQL bin directory, found no ${missing} in it`);
  }
  for (const key of Object.keys(opts.settings ?? {})) {
    if (!SETTING_RE.test(key)) throw new UserError(`setting name: expected a PostgreSQL parameter name, found ${JSON.stringify(key)}`);
  }
  const user = await ensurePgUser();
  userIds = { uid: user.uid, gid: user.gid };
  const ids = { uid: user.uid, gid: user.gid };
  const dir = clusterDir(opts.name);
  const dataDir = join(dir, "data");
  const socketDir = join(dir, "sock");
  const logFile = join(dir, "postgres.log");
  if (`${socketDir}/.s.PGSQL.65535`.length > 107) {
    throw new UserError(`cluster socket path ${socketDir} is too long for a Unix socket (limit 107 bytes): use a shorter name or SLICELAB_WORK`);
  }
  mkdirSync(socketDir, { recursive: true });
  for (const d of [join(workDir(), "clusters"), dir, socketDir]) chownSync(d, ids.uid, ids.gid);
  // Only the cluster user (and root, the kit) may enter the socket directory: no one else connects.
  chmodSync(socketDir, 0o700);
  const blocked = unreachableAncestor(socketDir, ids.uid, ids.gid);
  if (blocked !== undefined) {
    throw new UserError(
      `cluster ${opts.name}: the PostgreSQL user ${PG_USER} cannot reach ${dir}: ${blocked.path} (mode ${blocked.mode.toString(8).padStart(4, "0")}, owner uid ${blocked.uid}) does not let others through; ` +
        `put the kit in a directory others can enter (or \`chmod o+x ${blocked.path}\`), or set SLICELAB_WORK to such a directory`,
    );
  }
  if (!existsSync(logFile)) {
    writeFileSync(logFile, "");
    chownSync(logFile, ids.uid, ids.gid);
  }
  const env = userEnv(dir);
  const version = serverVersion(opts.binDir);

  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    rmSync(dataDir, { recursive: true, force: true });
    const r = await run(
      join(opts.binDir, "initdb"),
      ["-D", dataDir, "-U", PG_USER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      { asUser: ids, env, cwd: dir },
    );
    if (r.code !== 0) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new UserError(`initdb for cluster ${opts.name} failed (exit ${r.code ?? r.signal}):\n${(r.stderr || r.stdout).trim()}`);
    }
    appendFileSync(join(dataDir, "postgresql.conf"), "\n# Added by slicelab: per-start settings of the kit.\ninclude_if_exists = 'slicelab.conf'\n");
  } else {
    const dataMajor = Number(readFileSync(join(dataDir, "PG_VERSION"), "utf8").trim());
    if (dataMajor !== majorOf(version)) {
      throw new UserError(
        `cluster ${opts.name} (${dataDir}) holds PostgreSQL ${dataMajor} data, but ${opts.binDir} is ${version}: use another cluster name or remove ${dir}`,
      );
    }
  }
  const ownerFile = join(dir, "owner.json");
  const oldPid = postmasterPid(dataDir);
  if (oldPid !== undefined && alive(oldPid)) {
    // Left running by a kit process that was killed outright (SIGKILL): stop it. A cluster whose
    // owner is alive belongs to another series and is left alone.
    let owner: number | undefined;
    try {
      owner = Number(JSON.parse(readFileSync(ownerFile, "utf8")).pid);
    } catch {
      owner = undefined;
    }
    if (owner !== undefined && owner !== process.pid && !alive(owner)) {
      appendFileSync(logFile, `\n----- slicelab: stopping postmaster ${oldPid} left by dead kit process ${owner} -----\n`);
      stopSync(opts.binDir, dataDir);
    }
  }
  const stillPid = postmasterPid(dataDir);
  if (stillPid !== undefined && alive(stillPid)) {
    throw new UserError(
      `cluster ${opts.name} is already running (postmaster pid ${stillPid}, data ${dataDir}); another series may be using it: wait for it, or stop it with \`runuser -u ${PG_USER} -- ${join(opts.binDir, "pg_ctl")} -D ${dataDir} stop\``,
    );
  }

  const port = opts.port ?? (await freePort());
  const settings: Record<string, string | number | boolean> = {
    listen_addresses: "",
    port,
    unix_socket_directories: socketDir,
    ...opts.settings,
  };
  const conf = [
    "# Written by slicelab before every start of this cluster; edits are lost.",
    ...Object.entries(settings).map(([k, v]) => `${k} = ${confValue(v)}`),
    "",
  ].join("\n");
  const confFile = join(dataDir, "slicelab.conf");
  writeFileSync(confFile, conf);
  chownSync(confFile, ids.uid, ids.gid);

  writeFileSync(ownerFile, `${JSON.stringify({ pid: process.pid, started: new Date().toISOString() })}\n`);
  const serverEnv = { ...(opts.env ?? {}) };
  const startedAt = new Date().toISOString();
  appendFileSync(logFile, `\n----- slicelab: starting cluster ${opts.name} (${version}) at ${startedAt} -----\n`);
  liveClusters.set(dataDir, { binDir: opts.binDir, dataDir });
  const r = await run(join(opts.binDir, "pg_ctl"), ["-D", dataDir, "-l", logFile, "-w", "-t", "120", "-s", "start"], {
    asUser: ids,
    env: userEnv(dir, serverEnv),
    cwd: dir,
  });
  if (r.code !== 0) {
    stopSync(opts.binDir, dataDir);
    liveClusters.delete(dataDir);
    throw new UserError(
      `cluster ${opts.name} did not start (pg_ctl exit ${r.code ?? r.signal}); log ${logFile}:\n${tail(logFile)}\n${r.stderr.trim()}`,
    );
  }

  const psqlBin = existsSync(join(opts.binDir, "psql")) ? join(opts.binDir, "psql") : "psql";
  let stopping: Promise<void> | undefined;
  const stop = (mode: "fast" | "immediate" = "fast"): Promise<void> => {
    stopping ??= (async () => {
      const modes = mode === "fast" ? ["fast", "immediate"] : ["immediate"];
      for (const m of modes) {
        const s = await run(join(opts.binDir, "pg_ctl"), ["-D", dataDir, "-m", m, "-w", "-t", "60", "-s", "stop"], {
          asUser: ids,
          env,
          cwd: dir,
        });
        const pid = postmasterPid(dataDir);
        if (s.code === 0 || pid === undefined || !alive(pid)) break;
      }
      const pid = postmasterPid(dataDir);
      if (pid !== undefined && alive(pid)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }
      liveClusters.delete(dataDir);
      removeHook();
    })();
    return stopping;
  };
  const removeHook = addShutdownHook(() => stop("fast"));

  return {
    name: opts.name,
    binDir: opts.binDir,
    dataDir,
    port,
    socketDir,
    logFile,
    env: serverEnv,
    stop,
    async query(sql: string, db = "postgres"): Promise<string> {
      const q = await run(
        psqlBin,
        ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h", socketDir, "-p", String(port), "-U", PG_USER, "-d", db, "-c", sql],
        { env: { ...process.env, PGAPPNAME: "slicelab" } },
      );
      if (q.code !== 0) {
        throw new UserError(`cluster ${opts.name}: psql failed on ${JSON.stringify(sql.slice(0, 120))}: ${q.stderr.trim()}`);
      }
      return q.stdout.replace(/\n$/, "");
    },
  };
}

/** Starts a cluster, runs fn with it and always stops it (fast, then immediate). */
export async function withCluster<T>(opts: ClusterOptions, fn: (c: Cluster) => Promise<T>): Promise<T> {
  const c = await startCluster(opts);
  try {
    return await fn(c);
  } finally {
    await c.stop("fast");
  }
}
