// `study run smoke --ssh HOST`: the kit copied with rsync, the study run over OpenSSH, the record
// fetched back and its checksums checked — against a private sshd on 127.0.0.1 (a port of its own,
// a throwaway host key and user key), started and stopped by this test. The sshd runs in a private
// mount namespace whose /etc/passwd adds sshd's privilege-separation user and whose /run is a
// tmpfs, so the host's files are untouched. sshd: /usr/sbin/sshd, or $SLICELAB_SSHD (e.g. from
// `apt-get download openssh-server libwrap0` unpacked with dpkg-deb -x; LD_LIBRARY_PATH is set to
// its usr/lib/x86_64-linux-gnu).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { cacheDir, repoRoot } from "../src/util/paths.js";
import { freePort } from "../src/postgres/cluster.js";
import { checkSums, readRecord } from "../src/record/format.js";
import { kitInfo } from "../src/record/provenance.js";

// An unpacked sshd in the cache: cd $SLICELAB_CACHE && apt-get download openssh-server libwrap0 && for f in *.deb; do dpkg-deb -x $f openssh-server; done
const sshd = [process.env.SLICELAB_SSHD, "/usr/sbin/sshd", join(cacheDir(), "openssh-server", "usr", "sbin", "sshd")].find((p) => p && existsSync(p));
const unshareWorks = process.getuid?.() === 0 && spawnSync("unshare", ["-m", "--propagation", "private", "true"]).status === 0;
const skip = !sshd
  ? "no sshd: install openssh-server, or set SLICELAB_SSHD to an unpacked one (see the comment at the top)"
  : !unshareWorks
    ? "needs root and unshare -m (a private mount namespace for the throwaway sshd)"
    : false;

const tmp = mkdtempSync(join(tmpdir(), "slicelab-ssh-"));
chmodSync(tmp, 0o755); // the remote work directory must be reachable by the PostgreSQL user
let daemon: ChildProcess | undefined;
after(() => {
  if (daemon?.pid) daemon.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true });
});

async function listening(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect(port, "127.0.0.1");
    s.on("connect", () => { s.destroy(); res(true); });
    s.on("error", () => res(false));
  });
}

test("study run smoke --ssh root@127.0.0.1: rsync, OpenSSH, the record fetched and checked", { skip, timeout: 600_000 }, async () => {
  const port = await freePort();
  for (const k of ["hostkey", "userkey"]) assert.equal(spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(tmp, k)]).status, 0);
  writeFileSync(join(tmp, "authorized_keys"), readFileSync(join(tmp, "userkey.pub")));
  const passwd = readFileSync("/etc/passwd", "utf8");
  writeFileSync(join(tmp, "passwd"), /^sshd:/m.test(passwd) ? passwd : `${passwd.trimEnd()}\nsshd:x:64999:65534::/run/sshd:/usr/sbin/nologin\n`);
  writeFileSync(
    join(tmp, "sshd_config"),
    [`Port ${port}`, "ListenAddress 127.0.0.1", `HostKey ${join(tmp, "hostkey")}`, `AuthorizedKeysFile ${join(tmp, "authorized_keys")}`, "PasswordAuthentication no",
      "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "PermitRootLogin prohibit-password", `PidFile ${join(tmp, "sshd.pid")}`, ""].join("\n"),
  );
  const libs = join(dirname(dirname(dirname(sshd as string))), "usr", "lib", "x86_64-linux-gnu");
  const inner = `mount --bind ${join(tmp, "passwd")} /etc/passwd && mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && LD_LIBRARY_PATH=${libs} exec ${sshd} -D -E ${join(tmp, "sshd.log")} -f ${join(tmp, "sshd_config")}`;
  let log = "";
  daemon = spawn("unshare", ["-m", "--propagation", "private", "sh", "-c", inner], { stdio: ["ignore", "pipe", "pipe"] });
  daemon.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  for (let i = 0; i < 100 && !(await listening(port)); i++) await sleep(100);
  assert.ok(await listening(port), `sshd did not start: ${log} ${existsSync(join(tmp, "sshd.log")) ? readFileSync(join(tmp, "sshd.log"), "utf8") : ""}`);

  const runs = join(tmp, "runs");
  const sshArgs = ["--ssh", "root@127.0.0.1", "--ssh-port", String(port), "--ssh-key", join(tmp, "userkey"),
    "--ssh-option", "StrictHostKeyChecking=no", "--ssh-option", "UserKnownHostsFile=/dev/null", "--ssh-option", "LogLevel=ERROR", "--remote-dir", join(tmp, "remote")];
  // The plan as the remote machine sees it (its checks), nothing run.
  const dry = spawnSync(process.execPath, [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "smoke", ...sshArgs, "--dry-run"], { encoding: "utf8" });
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /^study smoke: [^]*\nchecks:\n[^]*\nestimate: /);
  assert.ok(!existsSync(join(tmp, "remote", ".work", "study-remote")), "a dry run leaves no record directory");
  const r = spawnSync(
    process.execPath,
    [join(repoRoot(), "bin", "slicelab.js"), "study", "run", "smoke", "--ssh", "root@127.0.0.1", "--ssh-port", String(port), "--ssh-key", join(tmp, "userkey"),
      "--ssh-option", "StrictHostKeyChecking=no", "--ssh-option", "UserKnownHostsFile=/dev/null", "--ssh-option", "LogLevel=ERROR",
      "--remote-dir", join(tmp, "remote"), "--runs-dir", runs, "--cluster-prefix", `tssh${process.pid}`, "--param", "duration=1", "--param", "time=1"],
    { encoding: "utf8", maxBuffer: 64 * 2 ** 20 },
  );
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr.slice(-3000)}\nsshd: ${log}`);
  // (the test's event loop was blocked by spawnSync: sshd logs to a file, read now)
  assert.match(readFileSync(join(tmp, "sshd.log"), "utf8"), /Accepted publickey for root from 127\.0\.0\.1/);
  assert.ok(existsSync(join(tmp, "remote", "bin", "slicelab.js")), "the kit was copied");
  assert.ok(!existsSync(join(tmp, "remote", ".git")), "without .git");
  const dirs = readdirSync(join(runs, "smoke"));
  assert.equal(dirs.length, 1);
  const dir = join(runs, "smoke", dirs[0]!);
  assert.deepEqual(checkSums(dir), []);
  const rec = readRecord(dir);
  assert.match(typeof rec.environment === "object" && "detail" in rec.environment ? rec.environment.detail : "", /^root@127\.0\.0\.1 over ssh/);
  assert.equal(rec.kit.commit, kitInfo().commit);
  assert.deepEqual((rec.command as string[]).slice(0, 6), ["slicelab", "study", "run", "smoke", "--ssh", "root@127.0.0.1"]);
  assert.equal(typeof rec.analysis === "object" && "verdict" in rec.analysis ? rec.analysis.verdict : "", "ran");
  assert.match(r.stdout, /record fetched from root@127\.0\.0\.1 \(checksums match\)/);
  // The remote record directory was moved aside, so the next run there starts a new one.
  assert.ok(readdirSync(join(tmp, "remote", ".work", "study-remote")).some((d) => d.startsWith("smoke-fetched-")));
});
