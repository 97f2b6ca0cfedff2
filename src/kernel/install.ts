/**
 * `slicelab kernel install`: the bare-metal end of the kernel path. Installs
 * the linux-image package `kernel package` built and selects it for the NEXT
 * BOOT ONLY with `grub-reboot`, leaving GRUB's default alone, so that a reset
 * brings the machine back to its usual kernel.
 *
 * Without --yes it changes nothing: it reads the machine (GRUB configuration,
 * how the running kernel was booted, container/VM, Secure Boot) and prints the
 * checks and the exact commands. With --yes it runs them, but only when every
 * check passes: root, a real GRUB with a grub.cfg that honours next_entry, a
 * running kernel that GRUB booted (BOOT_IMAGE= on its command line), no
 * container, a default entry that the new kernel cannot take over, no Secure
 * Boot (the package is unsigned), a kernel configured for hardware.
 *
 * $SLICELAB_TEST_SYSROOT (tests only) reads /boot, /etc/default/grub,
 * /proc/cmdline and /sys/firmware/efi below another directory; the commands
 * would still act on the real /, so --yes refuses whenever it is set.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { release as osRelease } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { UserError } from "../util/errors.js";
import { sha256File } from "./fetch.js";
import { imagePackage, onPath, type PackageFile, type PackageRecord } from "./package.js";
import { parseGrubCfg, findEntry, entryPath, predictEntry, compareReleases, grubDefaults, type GrubConfig } from "./grub.js";
export { grubWords, parseGrubCfg, findEntry, entryPath, predictEntry, compareReleases, grubDefaults, type GrubEntry, type GrubConfig } from "./grub.js";

// ---------------------------------------------------------------- the machine

/** What the checks need to know about the machine. */
export interface HostFacts {
  /** "/" normally; another directory under $SLICELAB_TEST_SYSROOT (tests). */
  sysroot: string;
  bootDir: string;
  grubCfgPath: string;
  /** Text of grub.cfg, or null when there is none. */
  grubCfg: string | null;
  /** Texts of /etc/default/grub and /etc/default/grub.d/*.cfg, in the order grub-mkconfig reads them. */
  grubDefaults: string[];
  /** Releases of the kernels in /boot (vmlinuz-RELEASE). */
  bootKernels: string[];
  /** /proc/cmdline of the running kernel. */
  cmdline: string;
  runningRelease: string;
  uid: number;
  /** Container technology when running in one (systemd-detect-virt --container, /.dockerenv, /run/.containerenv), else null. */
  container: string | null;
  /** Hypervisor when running in a VM (systemd-detect-virt --vm), else null. */
  vm: string | null;
  /** Secure Boot state from EFI variables; null when the machine did not boot through EFI. */
  secureBoot: boolean | null;
  /** Paths of the tools the commands use (undefined: not installed). */
  tools: { dpkg?: string; updateGrub?: string; grubReboot?: string; grubEditenv?: string };
}

async function detectVirt(flag: string): Promise<string | null> {
  if (!onPath("systemd-detect-virt")) return null;
  const r = await execa("systemd-detect-virt", [flag], { reject: false });
  const v = r.stdout.trim();
  return r.exitCode === 0 && v !== "" && v !== "none" ? v : null;
}

/** Reads the machine (nothing is changed). `sysroot` replaces "/" for the files read (tests only). */
export async function probeHost(sysroot = process.env.SLICELAB_TEST_SYSROOT ?? "/"): Promise<HostFacts> {
  const at = (p: string): string => join(sysroot, p);
  const bootDir = at("/boot");
  const grubCfgPath = join(bootDir, "grub", "grub.cfg");
  const defaults: string[] = [];
  if (existsSync(at("/etc/default/grub"))) defaults.push(readFileSync(at("/etc/default/grub"), "utf8"));
  const dropIns = at("/etc/default/grub.d");
  if (existsSync(dropIns)) for (const f of readdirSync(dropIns).filter((n) => n.endsWith(".cfg")).sort()) defaults.push(readFileSync(join(dropIns, f), "utf8"));
  const bootKernels = existsSync(bootDir) ? readdirSync(bootDir).filter((n) => n.startsWith("vmlinuz-")).map((n) => n.slice("vmlinuz-".length)) : [];
  let container = await detectVirt("--container");
  if (!container && existsSync("/.dockerenv")) container = "docker";
  if (!container && existsSync("/run/.containerenv")) container = "podman";
  let secureBoot: boolean | null = null;
  const efivars = at("/sys/firmware/efi/efivars");
  if (existsSync(at("/sys/firmware/efi"))) {
    secureBoot = false;
    const sb = existsSync(efivars) ? readdirSync(efivars).find((n) => n.startsWith("SecureBoot-")) : undefined;
    if (sb) {
      const b = readFileSync(join(efivars, sb));
      secureBoot = b.length >= 5 && b[4] === 1;
    }
  }
  return {
    sysroot,
    bootDir,
    grubCfgPath,
    grubCfg: existsSync(grubCfgPath) ? readFileSync(grubCfgPath, "utf8") : null,
    grubDefaults: defaults,
    bootKernels,
    cmdline: existsSync(at("/proc/cmdline")) ? readFileSync(at("/proc/cmdline"), "utf8").trim() : "",
    runningRelease: osRelease(),
    uid: process.getuid?.() ?? -1,
    container,
    vm: await detectVirt("--vm"),
    secureBoot,
    tools: { dpkg: onPath("dpkg"), updateGrub: onPath("update-grub"), grubReboot: onPath("grub-reboot"), grubEditenv: onPath("grub-editenv") },
  };
}

// ---------------------------------------------------------------- the plan

export interface InstallCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface InstallStep {
  argv: string[];
  why: string;
}

export interface InstallPlan {
  package: PackageFile;
  kernelRelease: string;
  runningRelease: string;
  grubCfg: string;
  /** The entry grub-reboot will select: exact when grub.cfg already has it, else predicted (null: unknown). */
  menuEntry: string | null;
  menuEntryExact: boolean;
  checks: InstallCheck[];
  steps: InstallStep[];
  rollback: string[];
  /** Whether --yes would run (every check passed). */
  ready: boolean;
}

/** A word quoted for a POSIX shell when it needs it. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The checks and commands of an install; pure (the facts were read before). */
export function planInstall(rec: PackageRecord, facts: HostFacts): InstallPlan {
  const image = imagePackage(rec);
  if (!image) throw new UserError(`${rec.buildDir}/debs/slicelab-package.json: expected a linux-image package among ${rec.files.map((f) => f.package).join(", ") || "no files"}`);
  const R = rec.kernelRelease;
  const checks: InstallCheck[] = [];
  const check = (name: string, ok: boolean, detail: string): void => {
    checks.push({ name, ok, detail });
  };
  check(
    "system root",
    facts.sysroot === "/",
    facts.sysroot === "/" ? "files read from /" : `$SLICELAB_TEST_SYSROOT=${facts.sysroot} replaces / for the files read (tests only); the commands would act on the real /`,
  );
  check("root", facts.uid === 0, facts.uid === 0 ? "running as uid 0" : `running as uid ${facts.uid}: dpkg, update-grub and grub-reboot need root (sudo)`);
  check(
    "container",
    facts.container === null,
    facts.container === null ? "not in a container" : `running in a container (${facts.container}): the kernel and the bootloader belong to its host`,
  );
  let cfg: GrubConfig | undefined;
  let cfgError: string | undefined;
  if (facts.grubCfg !== null) {
    try {
      cfg = parseGrubCfg(facts.grubCfg, facts.grubCfgPath);
    } catch (e) {
      cfgError = (e as Error).message;
    }
  }
  check(
    "bootloader",
    cfg !== undefined,
    cfg
      ? `${facts.grubCfgPath}: ${cfg.entries.length} menu entries`
      : cfgError ?? `${facts.grubCfgPath}: no such file: no GRUB on this machine${facts.vm ? ` (a ${facts.vm} VM started without a bootloader?)` : ""}; this command only handles GRUB`,
  );
  const missingTools = [
    ["dpkg", facts.tools.dpkg, "dpkg"],
    ["update-grub", facts.tools.updateGrub, "grub2-common"],
    ["grub-reboot", facts.tools.grubReboot, "grub2-common"],
    ["grub-editenv", facts.tools.grubEditenv, "grub-common"],
  ].filter(([, p]) => !p);
  check(
    "grub tools",
    missingTools.length === 0,
    missingTools.length === 0 ? "dpkg, update-grub, grub-reboot, grub-editenv on PATH" : `not installed: ${missingTools.map(([t, , pkg]) => `${t} (Debian package ${pkg})`).join(", ")}`,
  );
  const bootImage = /(?:^|\s)BOOT_IMAGE=(\S+)/.exec(facts.cmdline)?.[1];
  check(
    "booted by GRUB",
    bootImage !== undefined,
    bootImage
      ? `the running kernel was started by GRUB (BOOT_IMAGE=${bootImage})`
      : `no BOOT_IMAGE= on /proc/cmdline: the running kernel was not started by GRUB (${facts.vm ? `a ${facts.vm} VM booting its kernel directly, ` : ""}another loader, or EFI stub), so grub-reboot would not decide the next boot`,
  );
  if (cfg) {
    check(
      "next_entry",
      cfg.honoursNextEntry,
      cfg.honoursNextEntry
        ? "grub.cfg loads grubenv and boots next_entry once (what grub-reboot sets)"
        : `${facts.grubCfgPath} does not boot next_entry from grubenv (no grub-mkconfig 00_header?): grub-reboot would have no effect`,
    );
  }
  // The default must stay what it is: with a numeric GRUB_DEFAULT (Debian's 0), entry 0
  // boots the newest kernel, which the new package may become.
  const { grubDefault, disableSubmenu } = grubDefaults(facts.grubDefaults);
  const newest = facts.bootKernels.every((k) => k === R || compareReleases(R, k) > 0);
  let defaultOk: boolean;
  let defaultDetail: string;
  if (grubDefault === "saved") {
    defaultOk = true;
    defaultDetail = "GRUB_DEFAULT=saved: the default is saved_entry in grubenv, which grub-reboot does not change";
  } else if (/^\d+$/.test(grubDefault)) {
    const n = Number(grubDefault);
    if (n === 0 && newest) {
      defaultOk = false;
      defaultDetail = `GRUB_DEFAULT=0 and ${R} sorts above every kernel in ${facts.bootDir} (${facts.bootKernels.join(", ") || "none"}): after update-grub, entry 0 would boot ${R} on every boot. Pin the default first: set GRUB_DEFAULT=saved in /etc/default/grub, run update-grub and grub-set-default '${cfg && findEntry(cfg, facts.runningRelease) ? entryPath(findEntry(cfg, facts.runningRelease)!) : `<the entry of ${facts.runningRelease}>`}'`;
    } else if (disableSubmenu) {
      defaultOk = false;
      defaultDetail = `GRUB_DEFAULT=${n} with GRUB_DISABLE_SUBMENU=y: a new kernel adds top-level entries and shifts what entry ${n} boots; pin the default by title or use GRUB_DEFAULT=saved`;
    } else {
      defaultOk = true;
      defaultDetail = `GRUB_DEFAULT=${n}: ${n === 0 ? `entry 0 keeps booting the newest kernel, which stays ${facts.bootKernels.filter((k) => k !== R).sort(compareReleases).at(-1)}` : "new kernels go into the submenu; the top-level entries do not shift"}`;
    }
  } else {
    defaultOk = !grubDefault.includes(R);
    defaultDetail = defaultOk ? `GRUB_DEFAULT="${grubDefault}" names an entry; a new kernel does not change it` : `GRUB_DEFAULT="${grubDefault}" already names ${R}`;
  }
  // Without a grub.cfg the bootloader check has failed already; GRUB_DEFAULT means nothing then.
  if (cfg) check("default stays", defaultOk, defaultDetail);
  check(
    "secure boot",
    facts.secureBoot !== true,
    facts.secureBoot === true
      ? "Secure Boot is enabled: the firmware/shim would refuse this unsigned kernel; sign it (sbsign + mokutil) or disable Secure Boot"
      : facts.secureBoot === false
        ? "EFI boot, Secure Boot disabled"
        : "no EFI variables: legacy BIOS boot (or not exposed)",
  );
  check(
    "not the running kernel",
    facts.runningRelease !== R,
    facts.runningRelease !== R ? `running ${facts.runningRelease}, installing ${R}` : `${R} is the running kernel: dpkg -i would replace its files; build with another LOCALVERSION`,
  );
  const vmOnly = rec.base === null || /allnoconfig|x86_64_defconfig/.test(rec.base) || rec.fragments.includes("vm.config");
  check(
    "configured for hardware",
    !vmOnly,
    vmOnly
      ? `configured from ${rec.base ?? "an unknown base"} with ${rec.fragments.join(", ") || "no fragments"}: a kernel for the VM (virtio drivers only), not for this machine's disks and network; configure with --base /boot/config-$(uname -r) --fragment slice-ext`
      : `configured from ${rec.base} with ${rec.fragments.join(", ")}`,
  );

  const exact = cfg ? findEntry(cfg, R) : undefined;
  const predicted = cfg ? predictEntry(cfg, R) : undefined;
  const menuEntry = exact ? entryPath(exact) : predicted ?? null;
  const grubenv = join("/boot", "grub", "grubenv");
  const steps: InstallStep[] = [
    { argv: ["dpkg", "-i", image.path], why: `install ${image.package} ${image.version} (kernel, System.map, config in /boot; its hooks build an initramfs if one is configured)` },
    { argv: ["update-grub"], why: "regenerate /boot/grub/grub.cfg with an entry for the new kernel" },
    {
      argv: ["grub-reboot", menuEntry ?? `<the entry of ${R} in grub.cfg>`],
      why: exact ? "select it for the next boot only (grubenv next_entry); the default is unchanged" : "select it for the next boot only; --yes reads the entry from grub.cfg after update-grub (this one is predicted from the existing entries)",
    },
    { argv: ["grub-editenv", grubenv, "list"], why: "verify: next_entry must name the new kernel" },
  ];
  const rollback = [
    `before rebooting, to cancel: grub-editenv ${grubenv} unset next_entry`,
    "if the new kernel does not come up: reset the machine; GRUB consumed next_entry on that boot and starts the default again",
    `to remove it (booted into the old kernel): dpkg --purge ${image.package} && update-grub`,
  ];
  return {
    package: image,
    kernelRelease: R,
    runningRelease: facts.runningRelease,
    grubCfg: facts.grubCfgPath,
    menuEntry,
    menuEntryExact: exact !== undefined,
    checks,
    steps,
    rollback,
    ready: checks.every((c) => c.ok),
  };
}

/** The plan as text for the terminal. */
export function formatPlan(plan: InstallPlan): string {
  const p = plan.package;
  const out: string[] = [];
  out.push(`package ${p.path}`);
  out.push(`        ${p.package} ${p.version}, ${(p.size / 1048576).toFixed(1)} MiB, sha256 ${p.sha256}`);
  out.push(`kernel  ${plan.kernelRelease} (running now: ${plan.runningRelease})`);
  out.push("checks");
  for (const c of plan.checks) out.push(`  ${c.ok ? "ok  " : "FAIL"}  ${c.name}: ${c.detail}`);
  out.push("commands (as root)");
  for (const [i, s] of plan.steps.entries()) out.push(`  ${i + 1}. ${s.argv.map(shellQuote).join(" ")}\n       # ${s.why}`);
  out.push("  then reboot when ready (systemctl reboot): one boot into the new kernel; the next reboot returns to the default");
  out.push("rollback");
  for (const r of plan.rollback) out.push(`  - ${r}`);
  const failed = plan.checks.filter((c) => !c.ok).map((c) => c.name);
  out.push(
    failed.length === 0
      ? "all checks pass: `slicelab kernel install --yes` runs the commands above"
      : `--yes would refuse: ${failed.length} check(s) failed (${failed.join(", ")})`,
  );
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------- doing it

export interface InstallResult {
  plan: InstallPlan;
  menuEntry: string;
  grubenv: string;
}

/**
 * Runs the plan (--yes). Refuses, changing nothing, unless every check passes
 * and the package file still has its recorded sha256.
 */
export async function runInstall(rec: PackageRecord, facts: HostFacts, log: (s: string) => void): Promise<InstallResult> {
  const plan = planInstall(rec, facts);
  const failed = plan.checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    throw new UserError(`kernel install --yes: refusing, nothing changed; ${failed.length} check(s) failed:\n${failed.map((c) => `  ${c.name}: ${c.detail}`).join("\n")}`);
  }
  const sha = await sha256File(plan.package.path);
  if (sha !== plan.package.sha256) throw new UserError(`${plan.package.path}: sha256 ${sha} differs from the recorded ${plan.package.sha256}; run \`slicelab kernel package\` again`);
  const run = async (argv: string[], after: string): Promise<string> => {
    log(`$ ${argv.map(shellQuote).join(" ")}`);
    const r = await execa(argv[0]!, argv.slice(1), { reject: false, all: true });
    if (r.all) log(r.all);
    if (r.exitCode !== 0) throw new UserError(`${argv.join(" ")} failed (exit ${r.exitCode}). ${after}\nrollback:\n${plan.rollback.map((x) => `  - ${x}`).join("\n")}`);
    return r.stdout;
  };
  await run(plan.steps[0]!.argv, "The package may be half-configured: `dpkg --audit` shows it.");
  await run(["update-grub"], "The package is installed; grub.cfg may be stale.");
  const cfg = parseGrubCfg(readFileSync(facts.grubCfgPath, "utf8"), facts.grubCfgPath);
  const entry = findEntry(cfg, plan.kernelRelease);
  if (!entry) throw new UserError(`${facts.grubCfgPath}: expected an entry booting vmlinuz-${plan.kernelRelease} after update-grub, found none; nothing selected. Remove the package: dpkg --purge ${plan.package.package}`);
  const name = entryPath(entry);
  await run(["grub-reboot", name], "Nothing selected; the package is installed.");
  const grubenv = join(facts.bootDir, "grub", "grubenv");
  const env = await run(["grub-editenv", grubenv, "list"], "");
  if (!env.split("\n").includes(`next_entry=${name}`)) {
    throw new UserError(`${grubenv}: expected next_entry=${name}, found ${JSON.stringify(env.trim())}; the next boot may not select the new kernel`);
  }
  return { plan: { ...plan, menuEntry: name, menuEntryExact: true }, menuEntry: name, grubenv };
}
