import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Cluster } from "../postgres/cluster.js";
import { PG_USER } from "../postgres/user.js";
import { parsePgbench } from "../parse/pgbench.js";
import { parseSysbench } from "../parse/sysbench.js";
import { UserError } from "../util/errors.js";
import type { Tool } from "./protocol.js";

/**
 * How the runner drives each client tool: where its program is, how it connects
 * to a cluster (always the cluster's Unix socket), and which figure of its
 * output is the run's throughput. Protocol-independent: a protocol names the
 * tool and its workload arguments only.
 */
export interface ToolCommand {
  file: string;
  args: string[];
}

/** The client programs a series uses, the same for every variant. */
export interface Clients {
  /** Directory holding pgbench and psql. */
  binDir: string;
}

function sysbenchPath(): string {
  for (const d of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    const p = join(d, "sysbench");
    if (existsSync(p)) return p;
  }
  throw new UserError("sysbench is not installed: install the Debian package sysbench (`apt-get install sysbench`)");
}

/** The program and arguments that run `args` of `tool` against database `db` of a cluster. */
export function toolCommand(tool: Tool, clients: Clients, cluster: Cluster, db: string, args: string[]): ToolCommand {
  if (tool === "pgbench") {
    const file = join(clients.binDir, "pgbench");
    if (!existsSync(file)) throw new UserError(`${file} is missing: install the Debian package postgresql-client-15 (or pass another --client-bin)`);
    return { file, args: ["-h", cluster.socketDir, "-p", String(cluster.port), "-U", PG_USER, ...args, db] };
  }
  return {
    file: sysbenchPath(),
    args: [
      "--db-driver=pgsql",
      `--pgsql-host=${cluster.socketDir}`,
      `--pgsql-port=${cluster.port}`,
      `--pgsql-user=${PG_USER}`,
      `--pgsql-db=${db}`,
      ...args,
    ],
  };
}

/** A run's figures: `tps` (transactions per second) plus every other number the parser found. */
export interface ToolResult {
  tps: number;
  metrics: Record<string, number>;
}

function numbers(o: object, skip: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === "number" && Number.isFinite(v) && !skip.includes(k)) out[k] = v;
  return out;
}

/** Parses a measured run's raw output with the tool's parser. */
export function parseToolOutput(tool: Tool, text: string, file: string): ToolResult {
  if (tool === "pgbench") {
    const runs = parsePgbench(text, file);
    const r = runs[runs.length - 1];
    if (r === undefined) throw new UserError(`${file}: expected a pgbench result, found none`);
    return { tps: r.tps, metrics: numbers(r, ["line", "startLine"]) };
  }
  const r = parseSysbench(text, file);
  if (r.transactionsPerSec === null) throw new UserError(`${file}: expected sysbench SQL statistics with transactions per second, found none`);
  const metrics = numbers(r, []);
  metrics.latencyAvgMs = r.latency.avgMs;
  metrics.latencyPercentileMs = r.latency.percentileMs;
  return { tps: r.transactionsPerSec, metrics };
}

/** `pgbench --version`, `sysbench --version`, … or null when the program is missing. */
export function programVersion(file: string): string | null {
  try {
    return execFileSync(file, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

/** Versions of the client tools a series uses. */
export function clientVersions(clients: Clients): Record<string, string | null> {
  let sysbench: string | null = null;
  try {
    sysbench = programVersion(sysbenchPath());
  } catch {
    sysbench = null;
  }
  return {
    pgbench: programVersion(join(clients.binDir, "pgbench")),
    psql: programVersion(join(clients.binDir, "psql")),
    sysbench,
  };
}
