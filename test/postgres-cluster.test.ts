// A real PostgreSQL 15 cluster (Debian's binaries), started and stopped by the kit as user slicelab.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { clusterDir, startCluster, confValue, processAlive } from "../src/postgres/cluster.js";
import { debianBinDir, majorOf } from "../src/postgres/binaries.js";
import { ensurePgUser } from "../src/postgres/user.js";
import { workDir } from "../src/util/paths.js";
import { UserError } from "../src/util/errors.js";

const name = `test-cluster-${process.pid}`;
after(() => rmSync(clusterDir(name), { recursive: true, force: true }));

const alive = processAlive;

test("a cluster starts as slicelab under the work dir with the given settings and environment, and stops", async () => {
  const user = await ensurePgUser();
  const c = await startCluster({
    binDir: debianBinDir(),
    name,
    settings: { max_connections: 23, shared_buffers: "24MB", log_connections: true },
    env: { SLICELAB_TEST_MARK: "cluster-env-ok" },
  });
  try {
    assert.equal(c.dataDir, join(workDir(), "clusters", name, "data"));
    assert.equal(statSync(c.dataDir).uid, user.uid);
    assert.equal(await c.query("SHOW max_connections"), "23");
    assert.equal(await c.query("SHOW shared_buffers"), "24MB");
    assert.equal(await c.query("SHOW log_connections"), "on");
    assert.equal(await c.query("SHOW listen_addresses"), "", "no TCP address");
    assert.equal(await c.query("SHOW unix_socket_directories"), c.socketDir);
    assert.equal(await c.query("SHOW port"), String(c.port));
    assert.notEqual(c.port, 5432);
    assert.equal(await c.query("SELECT current_user"), "slicelab");
    const pid = Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    // The server runs as slicelab, not root, and got the extra environment.
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    assert.match(status, new RegExp(`^Uid:\\s+${user.uid}\\s`, "m"));
    assert.match(readFileSync(`/proc/${pid}/environ`, "utf8"), /SLICELAB_TEST_MARK=cluster-env-ok/);
    await c.query("CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)");
    await c.stop();
    assert.equal(alive(pid), false, "postmaster still alive after stop()");
    assert.equal(existsSync(join(c.dataDir, "postmaster.pid")), false);
    assert.match(readFileSync(c.logFile, "utf8"), /database system is shut down/);
  } finally {
    await c.stop();
  }
  // A second start reuses the data directory (no new initdb) with new settings.
  const c2 = await startCluster({ binDir: debianBinDir(), name, settings: { max_connections: 31 } });
  try {
    assert.equal(await c2.query("SELECT x FROM kept"), "42");
    assert.equal(await c2.query("SHOW max_connections"), "31");
    assert.equal(await c2.query("SHOW shared_buffers"), "128MB", "settings of the previous start must not stick");
  } finally {
    await c2.stop("immediate");
  }
});

test("another local user cannot reach the cluster (socket directory 0700, no TCP); the kit still connects", { timeout: 120_000 }, async () => {
  const user = await ensurePgUser();
  // A throwaway unprivileged user, removed afterwards.
  const other = `slt${process.pid % 100000}`;
  const add = spawnSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", other], { encoding: "utf8" });
  assert.equal(add.status, 0, add.stderr);
  const c = await startCluster({ binDir: debianBinDir(), name: `${name}-iso` });
  try {
    const otherIds = {
      uid: Number(execFileSync("id", ["-u", other], { encoding: "utf8" }).trim()),
      gid: Number(execFileSync("id", ["-g", other], { encoding: "utf8" }).trim()),
    };
    const st = statSync(c.socketDir);
    assert.equal(st.mode & 0o777, 0o700, `socket directory mode ${(st.mode & 0o777).toString(8)}`);
    assert.equal(st.uid, user.uid);
    const psql = join(debianBinDir(), "psql");
    const asOther = (args: string[]) =>
      spawnSync(psql, ["-X", "-A", "-t", "-w", "-U", "slicelab", "-d", "postgres", "-c", "SELECT current_user", ...args], {
        ...otherIds,
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin", HOME: "/", PGCONNECT_TIMEOUT: "5" },
        cwd: "/",
      });
    const bySocket = asOther(["-h", c.socketDir, "-p", String(c.port)]);
    assert.notEqual(bySocket.status, 0, `another user connected through the socket: ${bySocket.stdout}`);
    assert.match(bySocket.stderr, /Permission denied/, bySocket.stderr);
    const byTcp = asOther(["-h", "127.0.0.1", "-p", String(c.port)]);
    assert.notEqual(byTcp.status, 0, `another user connected over TCP: ${byTcp.stdout}`);
    assert.match(byTcp.stderr, /Connection refused/, byTcp.stderr);
    // The same command as root (the kit) connects.
    const asKit = spawnSync(psql, ["-X", "-A", "-t", "-w", "-h", c.socketDir, "-p", String(c.port), "-U", "slicelab", "-d", "postgres", "-c", "SELECT current_user"], { encoding: "utf8" });
    assert.equal(asKit.status, 0, asKit.stderr);
    assert.equal(asKit.stdout.trim(), "slicelab");
    assert.equal(await c.query("SELECT 1"), "1");
  } finally {
    await c.stop("immediate");
    rmSync(clusterDir(`${name}-iso`), { recursive: true, force: true });
    spawnSync("userdel", [other]);
  }
  assert.notEqual(spawnSync("id", [other]).status, 0, `${other} was removed`);
});

test("a second start of a running cluster is refused with a clear error", async () => {
  const c = await startCluster({ binDir: debianBinDir(), name });
  try {
    await assert.rejects(startCluster({ binDir: debianBinDir(), name }), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, new RegExp(`cluster ${name} is already running \\(postmaster pid \\d+`));
      return true;
    });
  } finally {
    await c.stop();
  }
});

test("a bad setting makes the start fail with the log's explanation and path", async () => {
  await assert.rejects(startCluster({ binDir: debianBinDir(), name, settings: { shared_buffers: "lots" } }), (err: unknown) => {
    assert.ok(err instanceof UserError);
    assert.match(err.message, /did not start/);
    assert.match(err.message, /postgres\.log/);
    assert.match(err.message, /shared_buffers/);
    return true;
  });
});

test("a directory without PostgreSQL is refused by name", async () => {
  await assert.rejects(startCluster({ binDir: "/usr/bin", name }), /\/usr\/bin: expected a PostgreSQL bin directory, found no postgres in it/);
});

test("settings are written in postgresql.conf syntax", () => {
  assert.equal(confValue(true), "on");
  assert.equal(confValue(12), "12");
  assert.equal(confValue("it's"), "'it''s'");
  assert.equal(majorOf("postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"), 15);
  assert.equal(majorOf("postgres (PostgreSQL) 19devel"), 19);
});

test("unreachableAncestor names the first directory the cluster user cannot pass through", async () => {
  const { unreachableAncestor } = await import("../src/postgres/cluster.js");
  const modes: Record<string, { mode: number; uid: number; gid: number }> = {
    "/": { mode: 0o40755, uid: 0, gid: 0 },
    "/tmp": { mode: 0o41777, uid: 0, gid: 0 },
    "/tmp/a": { mode: 0o40700, uid: 0, gid: 0 },
    "/tmp/a/b": { mode: 0o40700, uid: 0, gid: 0 },
    "/tmp/g": { mode: 0o40750, uid: 0, gid: 1001 },
    "/tmp/g/own": { mode: 0o40700, uid: 1001, gid: 1001 },
  };
  const stat = (p: string) => modes[p]!;
  assert.deepEqual(unreachableAncestor("/tmp/a/b", 1001, 1001, stat), { path: "/tmp/a", mode: 0o700, uid: 0 });
  // group search bit for a member of the group, owner bits for the owner
  assert.equal(unreachableAncestor("/tmp/g/own", 1001, 1001, stat), undefined);
  assert.deepEqual(unreachableAncestor("/tmp/g/own", 1002, 1002, stat), { path: "/tmp/g", mode: 0o750, uid: 0 });
});

test("a work directory inside a 0700 directory is refused before initdb, naming the directory and the way out", async () => {
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const closed = mkdtempSync(join(tmpdir(), "slicelab-closed-")); // mode 0700, owned by root
  const saved = process.env.SLICELAB_WORK;
  process.env.SLICELAB_WORK = join(closed, "work");
  try {
    await assert.rejects(
      startCluster({ binDir: debianBinDir(), name: "unreachable-test" }),
      (e: unknown) =>
        e instanceof UserError &&
        e.message.includes(`cannot reach ${join(closed, "work", "clusters", "unreachable-test")}: ${closed} (mode 0700, owner uid 0)`) &&
        /SLICELAB_WORK/.test(e.message),
    );
    assert.ok(!existsSync(join(closed, "work", "clusters", "unreachable-test", "data")));
  } finally {
    if (saved === undefined) delete process.env.SLICELAB_WORK;
    else process.env.SLICELAB_WORK = saved;
    rmSync(closed, { recursive: true, force: true });
  }
});
