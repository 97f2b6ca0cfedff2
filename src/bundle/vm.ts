/**
 * `slicelab bundle STUDY --with-vm` (issue 25, item 1, third part): the kit's 7.2 kernel and QEMU
 * in the bundle, for machines whose own kernel lacks the slice extension.
 *
 * What goes in (vm/): the kernel image the kit boots (`defaultKernelImage`: slice-ext + vm config);
 * QEMU's binary with its shared libraries (the `ldd` closure) and the dynamic loader, run as
 * `ld-linux-x86-64.so.2 --library-path vm/qemu/lib vm/qemu/bin/qemu-system-x86_64`, so it runs on
 * another distribution and C library; QEMU's TCG accelerator module when QEMU loads it as one
 * (Debian's does: `QEMU_MODULE_DIR`); the firmware a q35 `-kernel` boot reads (SeaBIOS and two option
 * ROMs, given with `-L`); and the guest's root: a static busybox and an init script, shared read-only
 * over virtio-9p (the kit's kernel has 9p built in and no initramfs support).
 *
 * What run.sh does with it (the hooks below, spliced into src/bundle/run-sh.ts): when this kernel
 * lacks the extension, a probe boot under KVM that must reach the guest's command within 30 s (first
 * `-cpu host`, then, when QEMU stops at once, `-cpu host,arch-capabilities=off`); the KVM guest path
 * when it does, else the native reference as before, with one line saying why. `--vm-accel tcg` or
 * `tcg-icount` takes the guest path under QEMU's emulator instead (timing emulated, and the record says
 * so). The guest runs the bundle's plan vm-ext, made by the same `guestMechanismScript` that
 * `mechanism run` boots in the VM, and writes into the same results directory (shared read-write over
 * 9p), so `slicelab import` reduces it with the same code; `vmImport` states the environment.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { cachedKernel } from "../kernel/ensure.js";
import { accelArgs, qemuBinary, type Accel } from "../vm/qemu.js";
import { guestMechanismScript, planRuns, type ExtLevel, type MicroShape, type PageLevel, type PreemptMode } from "../drivers/mechanism/index.js";
import { parseProbeOutput } from "../vm/probe.js";
import { UserError } from "../util/errors.js";
import type { BundlePlan, PlanFile } from "./format.js";

/** The plan the guest runs: the study's modes (switched in the guest's debugfs) × pages × extension. */
export const VM_PLAN = "vm-ext";
/** vCPUs of the bundle's guest (the kit's mechanism runs use 1). */
export const VM_CPUS = 1;
/** Seconds the KVM probe may take in all (issue 25: "a probe boot reaches the guest's command within 30 s"). */
export const KVM_PROBE_S = 30;
/** Extra seconds the host allows a guest beyond the remaining budget before it stops QEMU (a hung guest). */
export const VM_GRACE_S = 900;
export const PROBE_MARK = "slicelab-bundle-vm: probe reached the guest's command";
export const GUEST_START = "slicelab-bundle-vm: guest start";
export const GUEST_EXIT = "slicelab-bundle-vm: guest exit";
/** The firmware a q35 boot with -kernel reads (strace of QEMU 7.2 here): SeaBIOS, the fw_cfg DMA Linux loader ROM, the TPR-patching ROM. */
export const FIRMWARE = ["bios-256k.bin", "linuxboot_dma.bin", "kvmvapic.bin"] as const;

export interface BundleVm {
  kernel: { version: string; bzImageSha256: string; configSha256: string };
  qemu: { version: string; binarySha256: string; libraries: string[]; module: string | null; firmware: string[] };
  busybox: { version: string; sha256: string };
  cpus: number;
  memMiB: number;
  plan: string;
}

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** `ldd` output: each library's soname and resolved path, and the dynamic loader. A "not found" line is refused by name. */
export function parseLdd(text: string, file: string): { libraries: { name: string; path: string }[]; loader: string | null } {
  const libraries: { name: string; path: string }[] = [];
  let loader: string | null = null;
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const l = raw.trim();
    if (!l || /^linux-vdso\.so|^linux-gate\.so/.test(l)) return;
    if (/statically linked|not a dynamic executable/.test(l)) return;
    let m = /^(\S+) => not found$/.exec(l);
    if (m) throw new UserError(`${file}: ldd line ${i + 1}: library ${m[1]} not found (expected every library resolved)`);
    m = /^(\S+) => (\/\S+) \(0x[0-9a-f]+\)$/.exec(l);
    if (m) {
      libraries.push({ name: m[1]!, path: m[2]! });
      return;
    }
    m = /^(\/\S*ld-linux[^ ]*) \(0x[0-9a-f]+\)$/.exec(l);
    if (m) {
      loader = m[1]!;
      return;
    }
    throw new UserError(`${file}: ldd line ${i + 1}: expected "NAME => PATH (0xADDR)" or the loader "PATH (0xADDR)", found ${JSON.stringify(l.slice(0, 120))}`);
  });
  return { libraries, loader };
}

/** The guest's memory: the region, the huge pages the guest script reserves, and room for the kernel, traces and busybox. */
export function vmMemMiB(shape: MicroShape): number {
  const huge = (Math.ceil(shape.regionMiB / 2) + 8) * 2;
  return Math.ceil((shape.regionMiB + huge + 512) / 256) * 256;
}

/** The guest's PID 1 (busybox sh): pseudo filesystems, the bundle and results over 9p, then the job named on the kernel command line. */
export function guestRootInit(): string {
  const nine = "trans=virtio,version=9p2000.L,msize=262144";
  return `#!/bin/busybox sh
# The guest's init in a slicelab bundle (generated by src/bundle/vm.ts). Root: this directory, read-only
# over virtio-9p. The job comes from the kernel command line: slicelab.job=probe (print a line, stop) or
# slicelab.job=run (the bundle's plan slicelab.plan into the results directory shared as slicelab_out).
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t tmpfs -o mode=755 tmpfs /run
/bin/busybox mkdir -p /run/bin
/bin/busybox --install -s /run/bin
export PATH=/run/bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
arg() { tr ' ' '\\n' < /proc/cmdline | sed -n "s/^slicelab\\.$1=//p" | tail -1; }
job=$(arg job)
echo "${GUEST_START} $job"
rc=0
if [ "$job" = probe ]; then
  echo "${PROBE_MARK} ($(uname -r))"
else
  session=$(arg session)
  mount -t 9p -o ${nine},ro slicelab_bundle /bundle || { echo "slicelab-bundle-vm: mounting the bundle failed"; rc=90; }
  mount -t 9p -o ${nine} slicelab_out /out || { echo "slicelab-bundle-vm: mounting the results directory failed"; rc=91; }
  if [ $rc = 0 ]; then
    mkdir -p /out/vm
    /bundle/bin/slice-probe > /out/vm/guest-slice-probe.txt 2>&1
    env -i PATH=/run/bin HOME=/ TERM=dumb SLICELAB_VM=1 SLICELAB_VM_OUT=/out SLICELAB_LHP=/bundle/bin/lhp \\
      SLICELAB_BUDGET="$(arg budget | sed 's/^none$//')" SLICELAB_EST_RUN_S="$(arg est)" SLICELAB_NO_TRACE="$(arg notrace)" \\
      sh "/bundle/plans/$(arg plan).sh" < /dev/null
    rc=$?
    echo "$rc" > "/out/vm/guest-status.$session"
    sync
    umount /out
  fi
fi
echo "${GUEST_EXIT} $rc"
echo b > /proc/sysrq-trigger
sleep 5
`;
}

/** The guest's plan: the levels of the study, the guest's own script (huge pages reserved there, the mode a factor), resumable within a budget. */
export function vmPlan(d: { shape: MicroShape; modes: PreemptMode[]; pages: PageLevel[]; extensions: ExtLevel[]; blocks: number; seed: number }): { plan: BundlePlan; file: PlanFile; script: string } {
  const modes = d.modes.filter((m) => m !== "current" && m !== "none");
  const runs = planRuns({ blocks: d.blocks, modes, pages: d.pages, extensions: d.extensions, seed: d.seed });
  return {
    plan: { name: VM_PLAN, modes, pages: [...d.pages], extensions: [...d.extensions], blocks: d.blocks, runs: runs.length, perBlock: modes.length * d.pages.length * d.extensions.length },
    file: { name: VM_PLAN, runs, shape: d.shape },
    script: guestMechanismScript({ lhp: "/bundle/bin/lhp", lhpFromEnv: true, runs, shape: d.shape, bufferKb: 16384, resume: true }),
  };
}

function copyExec(src: string, dest: string): void {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(realpathSync(src), dest);
  chmodSync(dest, 0o755);
}

function findFirmware(name: string, qemuBin: string): string {
  const dirs = [join(dirname(qemuBin), "..", "share", "qemu"), "/usr/share/qemu", "/usr/share/seabios", "/usr/lib/ipxe/qemu"];
  for (const d of dirs) if (existsSync(join(d, name))) return realpathSync(join(d, name));
  throw new UserError(`--with-vm: QEMU's firmware ${name} not found (looked in ${dirs.join(", ")}; Debian packages qemu-system-x86 and seabios)`);
}

function staticBusybox(): string {
  for (const p of ["/bin/busybox", "/usr/bin/busybox"]) {
    if (!existsSync(p)) continue;
    let out = "";
    try {
      out = execFileSync("ldd", [p], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      out = `${(e as { stdout?: string }).stdout ?? ""}${(e as { stderr?: Buffer | string }).stderr?.toString() ?? ""}`;
    }
    if (/not a dynamic executable|statically linked/.test(out)) return p;
    throw new UserError(`--with-vm: ${p} is linked dynamically; the guest's root needs a static busybox (Debian package busybox-static; scripts/setup.sh vm installs it)`);
  }
  throw new UserError("--with-vm: no busybox for the guest's root (Debian package busybox-static; scripts/setup.sh vm installs it)");
}

/**
 * Copies the kernel, QEMU (binary, libraries, loader, TCG module, firmware) and the guest's root into
 * ROOT/vm/; returns what went in and the files, relative to ROOT, for BUNDLE.SHA256SUMS.
 */
export function stageVm(root: string, shape: MicroShape): { vm: BundleVm; files: string[] } {
  const k = cachedKernel();
  if (!k || !existsSync(k.bzImage)) throw new UserError("--with-vm: no built kit kernel in the cache: run `slicelab kernel fetch && slicelab kernel configure && slicelab kernel build` (or `slicelab prepare test`) first");
  const files: string[] = [];
  const put = (src: string, rel: string, exec = false) => {
    const dest = join(root, rel);
    if (exec) copyExec(src, dest);
    else {
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(realpathSync(src), dest);
    }
    files.push(rel);
  };
  put(k.bzImage, "vm/bzImage");
  const bin = qemuBinary();
  const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).split("\n")[0]!.trim();
  put(bin, "vm/qemu/bin/qemu-system-x86_64", true);
  const ldd = parseLdd(execFileSync("ldd", [bin], { encoding: "utf8" }), `ldd ${bin}`);
  if (!ldd.loader) throw new UserError(`ldd ${bin}: no dynamic loader line (expected /lib64/ld-linux-x86-64.so.2)`);
  for (const l of ldd.libraries) put(l.path, `vm/qemu/lib/${l.name}`);
  put(ldd.loader, "vm/qemu/lib/ld-linux-x86-64.so.2", true);
  // Debian builds QEMU with modules: TCG is accel-tcg-x86_64.so beside the others, found through QEMU_MODULE_DIR.
  const modDirs = [join(dirname(bin), "..", "lib", "x86_64-linux-gnu", "qemu"), "/usr/lib/x86_64-linux-gnu/qemu", join(dirname(bin), "..", "lib", "qemu")];
  const modDir = modDirs.find((d) => existsSync(join(d, "accel-tcg-x86_64.so")));
  let module: string | null = null;
  if (modDir) {
    const m = join(modDir, "accel-tcg-x86_64.so");
    const deps = parseLdd(execFileSync("ldd", [m], { encoding: "utf8" }), `ldd ${m}`);
    const missing = deps.libraries.filter((d) => !ldd.libraries.some((l) => l.name === d.name));
    for (const d of missing) put(d.path, `vm/qemu/lib/${d.name}`);
    put(m, "vm/qemu/modules/accel-tcg-x86_64.so");
    module = "accel-tcg-x86_64.so";
  }
  for (const f of FIRMWARE) put(findFirmware(f, bin), `vm/qemu/share/${f}`);
  const bb = staticBusybox();
  put(bb, "vm/root/bin/busybox", true);
  for (const d of ["proc", "sys", "dev", "tmp", "run", "bundle", "out"]) mkdirSync(join(root, "vm", "root", d), { recursive: true });
  writeFileSync(join(root, "vm", "root", "init"), guestRootInit());
  chmodSync(join(root, "vm", "root", "init"), 0o755);
  files.push("vm/root/init");
  const bbVersion = (execFileSync(bb, [], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).split("\n")[0] ?? "").trim();
  return {
    vm: {
      kernel: { version: k.version, bzImageSha256: k.bzImageSha256, configSha256: k.configSha256 },
      qemu: { version, binarySha256: sha256(readFileSync(bin)), libraries: files.filter((f) => f.startsWith("vm/qemu/lib/")).map((f) => basename(f)), module, firmware: [...FIRMWARE] },
      busybox: { version: bbVersion, sha256: sha256(readFileSync(bb)) },
      cpus: VM_CPUS,
      memMiB: vmMemMiB(shape),
      plan: VM_PLAN,
    },
    files,
  };
}

// ---- run.sh hooks ---------------------------------------------------------------------------

export interface RunShVmHooks {
  /** A case arm of run.sh's option loop. */
  option: string;
  /** One usage line. */
  usage: string;
  /** After the native/reference choice: the KVM probe or --vm-accel, setting VM=1, PATH_KIND, PLAN, MEM_NEED. */
  choose: string;
  /** The line that says what the VM path did (after the path line). */
  say: string;
  /** The runs on the VM path (sets rc). */
  run: string;
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** run.sh's VM pieces; for a bundle made without --with-vm, the option is refused and the line says so. */
export function runShVm(vm: BundleVm | undefined, o: { estimateRunS: number }): RunShVmHooks {
  if (!vm) {
    return {
      option: `--vm-accel) echo "run.sh: --vm-accel: this bundle has no VM (made without --with-vm)" >&2; exit 2 ;;`,
      usage: "",
      choose: "VM=0; VM_JSON=",
      say: `say "kvm path: not in this bundle (made without --with-vm)"`,
      run: ":",
    };
  }
  const accelCase = (["kvm", "tcg", "tcg-icount"] as Accel[]).map((a) => `${a}) VM_ACC_ARGS=${sq(accelArgs(a).join(" "))} ;;`).join(" ");
  const kcmd = "root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144 ro console=ttyS0 loglevel=4 panic=-1 init=/init no_timer_check";
  return {
    option: `--vm-accel) [ $# -ge 2 ] || usage; VMACCEL=$2; shift 2
      case "$VMACCEL" in auto|kvm|tcg|tcg-icount|none) ;; *) echo "run.sh: --vm-accel expects auto, kvm, tcg, tcg-icount or none, found \\"$VMACCEL\\"" >&2; exit 2 ;; esac ;;`,
    usage: `  echo "  --vm-accel A auto (default: a KVM guest when this kernel lacks the extension and a 30 s probe boot works), kvm, tcg, tcg-icount (QEMU's emulator: timing emulated), none"`,
    choose: `# --- the VM path (bundle made with --with-vm) ---------------------------
VMD="$HERE/vm"; VM=0; VM_ACC=; VM_CPU=max; VM_WHY=; VM_JSON=; VM_PROBE_LOG=; VM_MEM=${vm.memMiB}
case "$VMD" in *,*) [ "\${VMACCEL:-auto}" = none ] || refuse "the bundle's directory $HERE has a comma in its path, which QEMU's -fsdev cannot take: extract it elsewhere" ;; esac
vm_qemu() { env -i QEMU_MODULE_DIR="$VMD/qemu/modules" "$VMD/qemu/lib/ld-linux-x86-64.so.2" --library-path "$VMD/qemu/lib" "$VMD/qemu/bin/qemu-system-x86_64" -L "$VMD/qemu/share" -no-user-config "$@"; }
vm_accel_args() { case "$1" in ${accelCase} esac; }
VM_BASE="-machine q35 -smp ${vm.cpus} -m $VM_MEM -display none -vga none -monitor none -serial stdio -no-reboot -nic none"
vm_probe() {
  [ -e /dev/kvm ] || { VM_WHY="no /dev/kvm on this machine"; return; }
  { [ -r /dev/kvm ] && [ -w /dev/kvm ]; } || { VM_WHY="/dev/kvm is not readable and writable here"; return; }
  VM_PROBE_LOG=$(mktemp) || { VM_WHY="mktemp failed"; return; }
  t0=$(date +%s); parts=
  for cpu in host host,arch-capabilities=off; do
    left=$(( ${KVM_PROBE_S} - ($(date +%s) - t0) ))
    [ $left -ge 3 ] || break
    echo "== -accel kvm -cpu $cpu (limit $left s)" >> "$VM_PROBE_LOG"
    # shellcheck disable=SC2086
    timeout --foreground $left env -i QEMU_MODULE_DIR="$VMD/qemu/modules" "$VMD/qemu/lib/ld-linux-x86-64.so.2" --library-path "$VMD/qemu/lib" "$VMD/qemu/bin/qemu-system-x86_64" -L "$VMD/qemu/share" -no-user-config \\
      -accel kvm -cpu $cpu $VM_BASE -kernel "$VMD/bzImage" -append "${kcmd} slicelab.job=probe" \\
      -fsdev local,id=root,path="$VMD/root",security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \\
      < /dev/null > "$VM_PROBE_LOG.1" 2>&1
    cat "$VM_PROBE_LOG.1" >> "$VM_PROBE_LOG"
    took=$(( $(date +%s) - t0 ))
    if grep -q "${PROBE_MARK}" "$VM_PROBE_LOG.1"; then rm -f "$VM_PROBE_LOG.1"; VM=1; VM_ACC=kvm; VM_CPU=$cpu; VM_WHY="a KVM probe boot reached the guest's command in $took s (-cpu $cpu)"; return; fi
    err=$(grep '^qemu-system-x86_64: ' "$VM_PROBE_LOG.1" | grep -v 'terminating on signal' | head -1 | sed 's/^qemu-system-x86_64: //')
    if [ -n "$err" ]; then parts="$parts; -cpu $cpu: QEMU stopped: $err"; else parts="$parts; -cpu $cpu: nothing reached the guest's command in $left s"; fi
    rm -f "$VM_PROBE_LOG.1"
    [ -n "$err" ] || break
  done
  VM_WHY="the KVM probe failed within ${KVM_PROBE_S} s (\${parts#; })"
}
case "\${VMACCEL:-auto}" in
  none) VM_WHY="not tried (--vm-accel none)" ;;
  tcg|tcg-icount) VM=1; VM_ACC=$VMACCEL; VM_WHY="--vm-accel $VMACCEL: QEMU's emulator, timing emulated" ;;
  kvm) VM=1; VM_ACC=kvm; VM_CPU=host; VM_WHY="--vm-accel kvm (no probe)" ;;
  auto) if [ $EXT = 1 ]; then VM_WHY="not needed: this kernel has the slice extension"; else vm_probe; fi ;;
esac
if [ $VM = 1 ]; then
  vm_accel_args "$VM_ACC"
  [ "$VM_ACC" = kvm ] && PATH_KIND=kvm || PATH_KIND=tcg
  PLAN=${vm.plan}; MEM_NEED=$(( (VM_MEM + 256) * 1024 ))
  VM_JSON=$(printf ',"vm":{"accel":"%s","cpu":"%s","cpus":%s,"memMiB":%s,"kernel":"%s"}' "$VM_ACC" "$VM_CPU" ${vm.cpus} $VM_MEM ${sq(vm.kernel.version)})
fi`,
    say: `if [ $VM = 1 ]; then say "vm path: the kit's kernel ${vm.kernel.version} under QEMU $VM_ACC ($VM_WHY), ${vm.cpus} vCPU, $VM_MEM MiB; the guest runs plan $PLAN"; else say "kvm path: $VM_WHY: the $PATH_KIND path instead"; fi`,
    run: `mkdir -p "$OUT/vm"
[ -n "$VM_PROBE_LOG" ] && [ -f "$VM_PROBE_LOG" ] && mv "$VM_PROBE_LOG" "$OUT/vm/kvm-probe.$SESSION.log"
echo "$VM_ACC" > "$OUT/vm/accel"; echo "$VM_CPU" > "$OUT/vm/cpu"; echo "$VM_WHY" > "$OUT/vm/accel-reason"
vm_qemu --version 2>&1 | head -1 > "$OUT/vm/qemu-version"
# kvm and plain tcg: the guest's clock is the host's, so the guest keeps the budget (blocks that would end
# after it are not started) and QEMU is stopped only when it hangs. tcg-icount: the guest's clock counts
# instructions (and jumps when the guest idles), so it cannot keep a wall-clock budget: QEMU is stopped at
# the budget, and the run it was in is made again in the next session.
if [ "$VM_ACC" = tcg-icount ]; then VM_LEFT=; VM_LIMIT=$BUDGET; else VM_LEFT=$BUDGET; VM_LIMIT=$(( BUDGET + ${VM_GRACE_S} )); fi
say "booting the guest ($VM_ACC, -cpu $VM_CPU); $( [ -n "$VM_LEFT" ] && echo "the guest keeps the budget ($VM_LEFT s), QEMU stopped after $VM_LIMIT s" || echo "guest time counts instructions: QEMU stopped at the budget, $VM_LIMIT s")"
rm -f "$OUT/vm/guest-status.$SESSION"
t_vm=$(date +%s)
# shellcheck disable=SC2086
timeout --foreground $VM_LIMIT env -i QEMU_MODULE_DIR="$VMD/qemu/modules" "$VMD/qemu/lib/ld-linux-x86-64.so.2" --library-path "$VMD/qemu/lib" "$VMD/qemu/bin/qemu-system-x86_64" -L "$VMD/qemu/share" -no-user-config \\
  $VM_ACC_ARGS -cpu $VM_CPU $VM_BASE -kernel "$VMD/bzImage" \\
  -append "${kcmd} slicelab.job=run slicelab.plan=$PLAN slicelab.session=$SESSION slicelab.budget=\${VM_LEFT:-none} slicelab.est=${o.estimateRunS} slicelab.notrace=$( [ $TRACE = 1 ] && echo 0 || echo 1 )" \\
  -fsdev local,id=root,path="$VMD/root",security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \\
  -fsdev local,id=bundle,path="$HERE",security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=bundle,mount_tag=slicelab_bundle \\
  -fsdev local,id=out,path="$OUT",security_model=none,multidevs=remap -device virtio-9p-pci,fsdev=out,mount_tag=slicelab_out \\
  < /dev/null 2>&1 | tee -a "$OUT/vm/console.$SESSION.log"
echo $(( $(date +%s) - t_vm )) > "$OUT/vm/wall-s.$SESSION"
rc=$(cat "$OUT/vm/guest-status.$SESSION" 2>/dev/null)
if [ -z "$rc" ] && [ -z "$VM_LEFT" ] && [ "$(cat "$OUT/vm/wall-s.$SESSION")" -ge "$VM_LIMIT" ]; then
  say "the budget ended the guest (QEMU stopped after $VM_LIMIT s): run again (with a larger --budget) to add the rest"
  echo "budget: QEMU stopped after $VM_LIMIT s in session $SESSION (tcg-icount: the guest's clock cannot keep the budget)" >> "$OUT/notes.txt"
  ids=$(sed -n 's/^run \\([0-9]*\\) .*/\\1/p' "$HERE/plans/$PLAN.sh")
  for id in $ids; do [ -d "$OUT/runs/$id" ] || echo "$id" >> "$OUT/not-run"; done
  # the run QEMU was stopped in (a directory, no status) is not done either: listed when nothing else is
  [ -s "$OUT/not-run" ] || for id in $ids; do [ -f "$OUT/runs/$id/status" ] || echo "$id" >> "$OUT/not-run"; done
  rc=0
elif [ -z "$rc" ]; then
  say "the guest did not finish its plan (QEMU ended after $(cat "$OUT/vm/wall-s.$SESSION") s; console in $OUT/vm/console.$SESSION.log)"
  echo "the guest did not finish its plan in session $SESSION (no vm/guest-status.$SESSION)" >> "$OUT/notes.txt"
  rc=1
fi`,
  };
}

// ---- import ---------------------------------------------------------------------------------

export interface VmResultsField {
  accel: Accel;
  cpu: string;
  cpus: number;
  memMiB: number;
  kernel: string;
}

const accelWords = (a: Accel) => (a === "kvm" ? "a KVM guest" : a === "tcg-icount" ? "a TCG guest with instruction-counted time (QEMU -icount shift=0)" : "a TCG guest (QEMU's emulator, plain TCG)");
const readIf = (p: string) => (existsSync(p) ? readFileSync(p, "utf8") : null);

/** What the import needs to say where a VM-path results directory ran: the guest's kernel, the accelerator, emulated or real time. */
export function vmImport(dir: string, vm: VmResultsField, host: { label: string; kind: "bare metal" | "virtual machine" | "sandbox" }): {
  kernelRelease: string;
  accel: Accel;
  timing: "real" | "emulated";
  where: string;
  environment: { kind: "vm"; detail: string; setting: "bare metal" | "virtual machine" | "sandbox"; timing: "real" | "emulated" };
  kernel: { configSha256: string | null; hz: number | null; sliceExtension: string };
  notes: string[];
} {
  if (!["kvm", "tcg", "tcg-icount"].includes(vm.accel)) throw new UserError(`${join(dir, "RESULTS.json")}:1: expected vm.accel kvm, tcg or tcg-icount, found ${JSON.stringify(vm.accel)}`);
  const release = (readIf(join(dir, "uname-r")) ?? "").trim();
  if (!release) throw new UserError(`${join(dir, "uname-r")}: missing or empty (expected the guest's kernel release, written by the plan in the guest)`);
  const timing = vm.accel === "kvm" ? "real" : "emulated";
  const reason = (readIf(join(dir, "vm", "accel-reason")) ?? "").trim();
  const qemu = (readIf(join(dir, "vm", "qemu-version")) ?? "").trim();
  const probeText = readIf(join(dir, "vm", "guest-slice-probe.txt"));
  let sliceExtension = "unknown: no guest probe output (vm/guest-slice-probe.txt)";
  if (probeText) {
    try {
      const p = parseProbeOutput(probeText, join(dir, "vm", "guest-slice-probe.txt"));
      sliceExtension = p.sliceExtensionUsable ? `available in the guest (prctl set ok, get ${String(p.prctlGetAfter)}; slice ${String(p.sliceExtNsec)} ns; slice-probe on ${p.kernelRelease})` : `unavailable in the guest: prctl(PR_RSEQ_SLICE_EXTENSION) get ${String(p.prctlGetBefore)}, set ${p.prctlSet ?? "not tried"}`;
    } catch (e) {
      sliceExtension = `unknown: the guest probe's output did not parse (${(e as Error).message})`;
    }
  }
  const cfg = (readIf(join(dir, "config-sha256")) ?? "").trim();
  const hz = Number((readIf(join(dir, "hz")) ?? "").trim()) || null;
  const what = accelWords(vm.accel);
  return {
    kernelRelease: release,
    accel: vm.accel,
    timing,
    where: `In ${what} of ${host.label} (the bundle's kernel ${release}, ${vm.cpus} vCPU, HZ ${hz ?? "unknown"}${timing === "emulated" ? "; emulated time: counts of where preemptions land are the evidence, durations are not" : "; real time on the host's CPUs"})`,
    environment: {
      kind: "vm",
      detail: `${what} of ${host.label}: the bundle's kernel ${release} and ${qemu || "QEMU (version not recorded)"} run from the bundle, -cpu ${vm.cpu}, ${vm.cpus} vCPU, ${vm.memMiB} MiB (${reason || "reason not recorded"}; vm/ in raw/)`,
      setting: host.kind,
      timing,
    },
    kernel: { configSha256: /^[0-9a-f]{64}$/.test(cfg) ? cfg : null, hz, sliceExtension },
    notes: [
      timing === "emulated"
        ? `emulated time: the guest ran under QEMU's ${vm.accel} (${reason || "--vm-accel"}); counts (grants, where a descheduling landed) are evidence, durations and throughput are not`
        : `real time in a KVM guest of ${host.label} (${reason || "the KVM probe passed"}); the guest's vCPU is itself a thread the host can preempt (steal time in the notes is the host's)`,
      `the host: ${host.label}; its own kernel is in raw/machine/ (the runs used the bundle's kernel ${release})`,
    ],
  };
}
