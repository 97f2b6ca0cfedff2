// A real PostgreSQL 15 cluster (Debian's binaries), started and stopped by the kit as user slicelab.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
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
    assert.equal(await c.query("SHOW listen_addresses"), "127.0.0.1");
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
