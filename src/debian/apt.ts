/**
 * A private apt configuration under the kit's work directory, used to fetch
 * source packages (deb-src) from a Debian suite — bookworm or sid — without
 * touching the system's apt sources, state or cache. The mirror URI is taken
 * from the machine's own apt configuration, so no registry host is named here.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { UserError } from "../util/errors.js";
import { workDir } from "../util/paths.js";

export interface PrivateApt {
  suite: string;
  root: string;
  mirror: string;
  /** apt-get arguments that select this private configuration. */
  options: string[];
}

/** The first Debian archive URI (not the security archive) in the system's apt sources. */
export function systemMirror(sourcesDir = "/etc/apt/sources.list.d", listFile = "/etc/apt/sources.list"): string {
  const uris: string[] = [];
  if (existsSync(sourcesDir)) {
    for (const f of readdirSync(sourcesDir).filter((n) => n.endsWith(".sources")).sort()) {
      for (const line of readFileSync(join(sourcesDir, f), "utf8").split("\n")) {
        const m = /^URIs:\s*(.+)$/.exec(line.trim());
        if (m) uris.push(...m[1]!.split(/\s+/));
      }
    }
  }
  if (existsSync(listFile)) {
    for (const line of readFileSync(listFile, "utf8").split("\n")) {
      const m = /^deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)/.exec(line.trim());
      if (m) uris.push(m[1]!);
    }
  }
  const mirror = uris.find((u) => /\/debian\/?$/.test(u) && !/security/.test(u));
  if (!mirror) {
    throw new UserError(
      `no Debian archive URI found in ${sourcesDir}/*.sources or ${listFile}; ` +
        "set SLICELAB_DEBIAN_MIRROR to the URI of a Debian mirror",
    );
  }
  return mirror.replace(/\/$/, "");
}

/** Creates (once) the private apt tree for `suite` and returns how to call apt with it. */
export function privateApt(suite: string): PrivateApt {
  const mirror = process.env.SLICELAB_DEBIAN_MIRROR ?? systemMirror();
  const root = join(workDir(), "apt", suite);
  for (const d of ["etc/preferences.d", "etc/trusted.gpg.d", "state/lists/partial", "cache/archives/partial"]) {
    mkdirSync(join(root, d), { recursive: true });
  }
  const keyring = "/usr/share/keyrings/debian-archive-keyring.gpg";
  writeFileSync(
    join(root, "etc/sources.list"),
    `deb [signed-by=${keyring}] ${mirror} ${suite} main\ndeb-src [signed-by=${keyring}] ${mirror} ${suite} main\n`,
  );
  const options = [
    "-o", `Dir::Etc::SourceList=${join(root, "etc/sources.list")}`,
    "-o", "Dir::Etc::SourceParts=/dev/null",
    "-o", `Dir::Etc::Preferences=${join(root, "etc/preferences")}`,
    "-o", `Dir::Etc::PreferencesParts=${join(root, "etc/preferences.d")}`,
    "-o", `Dir::State=${join(root, "state")}`,
    "-o", `Dir::State::status=${join(root, "state/status")}`,
    "-o", `Dir::Cache=${join(root, "cache")}`,
    "-o", "APT::Sandbox::User=root",
    "-o", "Debug::NoLocking=1",
  ];
  if (!existsSync(join(root, "state/status"))) writeFileSync(join(root, "state/status"), "");
  return { suite, root, mirror, options };
}

/** `apt-get update` for the private configuration, at most once per `maxAgeHours`. */
export async function updatePrivateApt(apt: PrivateApt, maxAgeHours = 24): Promise<void> {
  const stamp = join(apt.root, "state/updated");
  if (existsSync(stamp)) {
    const age = (Date.now() - Number(readFileSync(stamp, "utf8"))) / 3.6e6;
    if (age < maxAgeHours) return;
  }
  const r = await execa("apt-get", [...apt.options, "-q", "update"], { reject: false, all: true });
  if (r.exitCode !== 0) {
    throw new UserError(`apt-get update for the private ${apt.suite} configuration failed:\n${r.all ?? ""}`);
  }
  writeFileSync(stamp, String(Date.now()));
}

/** The newest version of a source package in the private suite (by dpkg's ordering), or undefined. */
export async function sourceVersion(apt: PrivateApt, pkg: string): Promise<string | undefined> {
  const r = await execa("apt-cache", [...apt.options, "showsrc", "--only-source", pkg], { reject: false });
  const versions = [...r.stdout.matchAll(/^Version:\s*(\S+)/gm)].map((m) => m[1]!);
  let best: string | undefined;
  for (const v of versions) {
    if (best === undefined) best = v;
    else if ((await execa("dpkg", ["--compare-versions", v, "gt", best], { reject: false })).exitCode === 0) best = v;
  }
  return best;
}

/**
 * Downloads a source package (`apt-get source --download-only`, verified by apt
 * against the archive keyring) into `dest`; `pkgVersion` is `name` or `name=version`.
 */
export async function downloadSource(apt: PrivateApt, pkgVersion: string, dest: string): Promise<string[]> {
  mkdirSync(dest, { recursive: true });
  const r = await execa("apt-get", [...apt.options, "-q", "source", "--download-only", pkgVersion], {
    cwd: dest,
    reject: false,
    all: true,
  });
  if (r.exitCode !== 0) {
    throw new UserError(`apt-get source ${pkgVersion} (${apt.suite}) failed:\n${r.all ?? ""}`);
  }
  return readdirSync(dest);
}

/** Downloads a binary package (`apt-get download`) into `dest`; returns the .deb's name. */
export async function downloadBinary(apt: PrivateApt, pkgVersion: string, dest: string): Promise<string> {
  mkdirSync(dest, { recursive: true });
  const before = new Set(readdirSync(dest));
  const r = await execa("apt-get", [...apt.options, "-q", "download", pkgVersion], { cwd: dest, reject: false, all: true });
  if (r.exitCode !== 0) {
    throw new UserError(`apt-get download ${pkgVersion} (${apt.suite}) failed:\n${r.all ?? ""}`);
  }
  const added = readdirSync(dest).filter((n) => !before.has(n) && n.endsWith(".deb"));
  const deb = added[0] ?? readdirSync(dest).find((n) => n.startsWith(`${pkgVersion.split("=")[0]}_`) && n.endsWith(".deb"));
  if (!deb) throw new UserError(`apt-get download ${pkgVersion} left no .deb in ${dest}`);
  return deb;
}
