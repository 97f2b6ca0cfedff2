import type { Command } from "../command.js";
import { parseCommandArgs, numberOption, printJson } from "../args.js";
import { UserError } from "../../util/errors.js";
import { fetchKernel } from "../../kernel/fetch.js";
import { buildDirFor, configureKernel, DEFAULT_FRAGMENTS, fragmentPath } from "../../kernel/configure.js";
import { buildKernel, readBuildRecord } from "../../kernel/build.js";
import { currentTree, treeAt } from "../../kernel/tree.js";
import { listSeries } from "../../kernel/series.js";
import { applySeries } from "../../kernel/patch.js";
import { imagePackage, packageKernel, packageRecordPath, readPackageRecord } from "../../kernel/package.js";
import { formatPlan, planInstall, probeHost, runInstall } from "../../kernel/install.js";

const usage = `usage: slicelab kernel SUBCOMMAND [OPTIONS] [--json]

  fetch [--source TARBALL|GITDIR] [--suite SUITE] [--no-current] [--offline]
      Get a Linux source tree: by default Debian's linux-source-X.Y package from
      SUITE (default sid) through the kit's private apt configuration; or a
      kernel.org tarball, or a git work tree (used in place). The version and
      the sha256 of what was fetched are recorded; the tree becomes current
      unless --no-current (e.g. a 6.x reference: --suite bookworm --no-current).
      --offline uses only the cached package lists and .deb, never the network.
  configure [--fragment NAME|PATH]… [--base small|defconfig|CONFIG] [--tree DIR]
      Merge config fragments (default: ${DEFAULT_FRAGMENTS.join(", ")}; names refer to
      kernel-patches/linux/NAME.config) onto a base config with
      scripts/kconfig/merge_config.sh, run olddefconfig, and fail naming every
      requested option that did not survive and the Kconfig condition it needs.
      Base "small" (default): allnoconfig + kernel-patches/linux/base.config;
      "defconfig": x86_64_defconfig + kernel/configs/kvm_guest.config; or a file.
  build [--fragment NAME|PATH]… [--base …] [--tree DIR] [--jobs N] [--no-ccache] [--quiet]
      make bzImage in the configured build directory (ccache in
      ~/.cache/slicelab/kernel/ccache, niced); prints the image path and the
      build time, recorded in the build directory's slicelab-build.json.
  package [--fragment NAME|PATH]… [--base …] [--tree DIR] [--jobs N] [--quiet]
      Debian packages of the built kernel (make bindeb-pkg), made in a copy of
      the build directory (BUILD/debs/objtree: bindeb-pkg bumps .version and
      relinks, which would change the image \`vm run\` boots); the .deb files,
      their sizes, sha256 and the packaging time go to BUILD/debs/ and
      BUILD/debs/slicelab-package.json. Needs dpkg-dev, debhelper, rsync and
      the build dependencies dpkg-buildpackage names.
  install [--fragment NAME|PATH]… [--base …] [--tree DIR] [--yes]
      Bare metal. Without --yes: print the checks and the exact commands
      (dpkg -i the linux-image package, update-grub, grub-reboot ENTRY for the
      next boot only, grub-editenv list) and the rollback; nothing changes.
      With --yes: run them, refusing unless every check passes (root; GRUB
      with a grub.cfg that honours next_entry; running kernel booted by GRUB;
      no container; GRUB's default stays the old kernel; no Secure Boot; a
      config for hardware, e.g. --base /boot/config-$(uname -r) --fragment
      slice-ext). It never reboots and never changes the default entry.
  patch [--series DIR] [--fragment NAME|PATH]… [--tree DIR] [--check]
      Apply a patch series (default kernel-patches/linux/series/slicelab) to a
      copy of the tree: a dry run of every patch first; the first hunk that does
      not apply is named and nothing is changed. --check stops after the dry run.
  series
      List the historical patch-series manifests (kernel-patches/linux/series/*.json).
  show [--fragment NAME|PATH]… [--base …]
      The current tree and its build and packages for the fragments.

Build directories: ~/.cache/slicelab/kernel/build/VERSION/FRAGMENTS/ (override the
cache with $SLICELAB_CACHE).`;

function treeFrom(dir: string | undefined) {
  return dir ? treeAt(dir) : currentTree();
}

export const kernelCommand: Command = {
  name: "kernel",
  summary: "fetch, configure (config fragments), patch, build and package a Linux kernel with the slice extension; install it for one boot",
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    const log = (s: string): void => {
      process.stderr.write(`slicelab kernel: ${s}\n`);
    };
    switch (sub) {
      case "fetch": {
        const { values } = parseCommandArgs("kernel", rest, {
          source: { type: "string" },
          suite: { type: "string" },
          "no-current": { type: "boolean" },
          offline: { type: "boolean" },
          json: { type: "boolean" },
        });
        const tree = await fetchKernel({
          source: values.source, suite: values.suite, log,
          makeCurrent: !values["no-current"], offline: values.offline === true,
        });
        if (values.json) printJson(tree);
        else process.stdout.write(`${tree.dir}\nversion ${tree.version} (${tree.origin}${tree.debianVersion ? ` ${tree.debianPackage} ${tree.debianVersion}` : ""})${tree.sha256 ? ` sha256 ${tree.sha256}` : ""}${tree.gitCommit ? ` commit ${tree.gitCommit}${tree.gitDirty ? " (dirty)" : ""}` : ""}\n`);
        return 0;
      }
      case "configure": {
        const { values } = parseCommandArgs("kernel", rest, {
          fragment: { type: "string", multiple: true },
          base: { type: "string" },
          tree: { type: "string" },
          json: { type: "boolean" },
        });
        const tree = treeFrom(values.tree);
        const frags = (values.fragment ?? DEFAULT_FRAGMENTS).map(fragmentPath);
        const r = await configureKernel({ tree, fragments: frags, baseConfig: values.base });
        if (values.json) printJson(r);
        else process.stdout.write(`${r.buildDir}/.config: ${r.requested} requested options all present (config sha256 ${r.configSha256.slice(0, 12)}${r.changed ? ", updated" : ", unchanged"})\n`);
        return 0;
      }
      case "build": {
        const { values } = parseCommandArgs("kernel", rest, {
          fragment: { type: "string", multiple: true },
          tree: { type: "string" },
          base: { type: "string" },
          jobs: { type: "string" },
          "no-ccache": { type: "boolean" },
          quiet: { type: "boolean" },
          json: { type: "boolean" },
        });
        const tree = treeFrom(values.tree);
        const buildDir = buildDirFor(tree, (values.fragment ?? DEFAULT_FRAGMENTS).map(fragmentPath), values.base);
        const jobs = values.jobs === undefined ? undefined : numberOption("jobs", values.jobs, 0);
        const rec = await buildKernel({
          tree,
          buildDir,
          jobs,
          ccache: !values["no-ccache"],
          onLine: values.quiet || values.json ? undefined : (l) => process.stderr.write(`${l}\n`),
        });
        if (values.json) printJson(rec);
        else process.stdout.write(`${rec.bzImage}\nbuilt in ${rec.seconds} s with -j${rec.jobs}${rec.ccache ? ` (ccache hits ${rec.ccacheHits}, misses ${rec.ccacheMisses})` : ""}${rec.upToDate ? ", nothing to recompile" : ""}\n`);
        return 0;
      }
      case "package": {
        const { values } = parseCommandArgs("kernel", rest, {
          fragment: { type: "string", multiple: true },
          tree: { type: "string" },
          base: { type: "string" },
          jobs: { type: "string" },
          quiet: { type: "boolean" },
          json: { type: "boolean" },
        });
        const tree = treeFrom(values.tree);
        const buildDir = buildDirFor(tree, (values.fragment ?? DEFAULT_FRAGMENTS).map(fragmentPath), values.base);
        const jobs = values.jobs === undefined ? undefined : numberOption("jobs", values.jobs, 0);
        const rec = await packageKernel({
          tree,
          buildDir,
          jobs,
          log,
          onLine: values.quiet || values.json ? undefined : (l) => process.stderr.write(`${l}\n`),
        });
        if (values.json) printJson(rec);
        else {
          for (const f of rec.files) process.stdout.write(`${f.path}\n`);
          const img = imagePackage(rec);
          process.stdout.write(`${rec.files.length} package(s) for ${rec.kernelRelease} in ${rec.seconds} s with -j${rec.jobs} (copy ${rec.copySeconds} s)${img ? `; ${img.package} ${(img.size / 1048576).toFixed(1)} MiB` : ""}; recorded in ${rec.log.replace(/\.log$/, ".json")}\n`);
        }
        return 0;
      }
      case "install": {
        const { values } = parseCommandArgs("kernel", rest, {
          fragment: { type: "string", multiple: true },
          tree: { type: "string" },
          base: { type: "string" },
          yes: { type: "boolean" },
          json: { type: "boolean" },
        });
        const tree = treeFrom(values.tree);
        const buildDir = buildDirFor(tree, (values.fragment ?? DEFAULT_FRAGMENTS).map(fragmentPath), values.base);
        const rec = readPackageRecord(buildDir);
        if (!rec) throw new UserError(`${packageRecordPath(buildDir)}: no packages (missing, or a .deb it lists is gone): run \`slicelab kernel package\` with the same options first`);
        const facts = await probeHost();
        if (!values.yes) {
          const plan = planInstall(rec, facts);
          if (values.json) printJson(plan);
          else process.stdout.write(`plan only, nothing changed (\`slicelab kernel install --yes\` runs it)\n${formatPlan(plan)}`);
          return 0;
        }
        const r = await runInstall(rec, facts, log);
        if (values.json) printJson(r);
        else {
          process.stdout.write(`${r.plan.package.package} installed; next boot only: ${r.menuEntry} (${r.grubenv}); the default entry is unchanged\nreboot when ready; rollback:\n${r.plan.rollback.map((x) => `  - ${x}`).join("\n")}\n`);
        }
        return 0;
      }
      case "patch": {
        const { values } = parseCommandArgs("kernel", rest, {
          series: { type: "string" },
          fragment: { type: "string", multiple: true },
          tree: { type: "string" },
          check: { type: "boolean" },
          json: { type: "boolean" },
        });
        const r = await applySeries({ tree: treeFrom(values.tree), seriesDir: values.series, checkOnly: values.check, log });
        if (values.json) printJson(r);
        else process.stdout.write(`${r.checkOnly ? "dry run: all" : "applied"} ${r.patches.length} patch(es)${r.patchedTree ? ` → ${r.patchedTree}` : ""}\n`);
        return 0;
      }
      case "series": {
        const { values } = parseCommandArgs("kernel", rest, { json: { type: "boolean" } });
        const all = listSeries();
        if (values.json) printJson(all);
        else for (const s of all) process.stdout.write(`${s.id}\t${s.base}\t${s.messageId ?? "(no Message-ID)"}\t${s.title}\n`);
        return 0;
      }
      case "show": {
        const { values } = parseCommandArgs("kernel", rest, {
          fragment: { type: "string", multiple: true },
          base: { type: "string" },
          json: { type: "boolean" },
        });
        const tree = currentTree();
        const buildDir = buildDirFor(tree, (values.fragment ?? DEFAULT_FRAGMENTS).map(fragmentPath), values.base);
        const build = readBuildRecord(buildDir) ?? null;
        const packages = readPackageRecord(buildDir) ?? null;
        const image = packages ? imagePackage(packages) : undefined;
        if (values.json) printJson({ tree, buildDir, build, packages });
        else {
          process.stdout.write(
            `tree ${tree.dir} (${tree.version})\nbuild ${buildDir}: ${build ? `${build.bzImage} (${build.seconds} s)` : "not built"}\npackage: ${image ? `${image.path} (${packages!.seconds} s)` : "not packaged"}\n`,
          );
        }
        return 0;
      }
      default:
        throw new UserError(`expected a subcommand (fetch, configure, build, package, install, patch, series, show), found ${sub === undefined ? "none" : `"${sub}"`} (see \`slicelab kernel --help\`)`);
    }
  },
};
