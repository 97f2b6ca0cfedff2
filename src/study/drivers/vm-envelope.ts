/**
 * What an experiment that boots the kit's VM itself tells the study runner about where it ran
 * (DriverResult.envelope): the VM and its accelerator, emulated timing under TCG, and the guest's
 * kernel — derived from the files the driver wrote into out/, so that a record's envelope can be
 * made again from them (`envelopeFromOut`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { DriverResult } from "./index.js";
import { fieldText, readRecord, unknown, writeRecord, writeSums } from "../../record/format.js";

type Envelope = NonNullable<DriverResult["envelope"]>;
type Json = Record<string, any>;

const accelText = (a: string) => (a === "tcg-icount" ? "QEMU TCG with instruction-counted time" : a === "tcg" ? "QEMU plain TCG" : a === "kvm" ? "QEMU KVM" : `QEMU ${a}`);

/** A mechanism driver's out/ (provenance.json with vm and kernel, rows.json with modeActive and grants). */
export function mechanismEnvelope(out: string): Envelope {
  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8")) as Json;
  const rows = (existsSync(join(out, "rows.json")) ? JSON.parse(readFileSync(join(out, "rows.json"), "utf8")) : []) as Json[];
  const vm = prov.vm as Json | undefined;
  if (!vm || typeof vm.accel !== "string") throw new UserError(`${join(out, "provenance.json")}: expected a vm object with accel (a mechanism driver's provenance)`);
  const modes = [...new Set(rows.map((r) => String(r.modeActive ?? r.mode)))];
  const on = rows.filter((r) => r.extension === "on");
  const granted = on.filter((r) => typeof r.grants === "number" && r.grants > 0).length;
  return {
    environment: {
      kind: "vm",
      detail: `the kit's VM: ${accelText(vm.accel)}, ${vm.cpus} vCPU, ${vm.memMiB} MiB, boot line ${String(vm.append ?? "")} (out/provenance.json)${vm.accel === "kvm" ? "" : "; emulated: counts of where preemptions land are the evidence, times are not"}`,
      timing: vm.accel === "kvm" ? "real" : "emulated",
    },
    kernelRelease: String(prov.kernel?.release ?? "unknown"),
    configSha256: typeof prov.kernel?.guestConfigSha256 === "string" ? prov.kernel.guestConfigSha256 : typeof prov.kernel?.build?.configSha256 === "string" ? prov.kernel.build.configSha256 : undefined,
    preemptMode: modes.length ? `${modes.join(", ")} (a factor: written to the guest's debugfs sched/preempt before each run; rows.json modeActive)` : undefined,
    sliceExtension: on.length === 0 ? undefined : granted > 0 ? `available in the guest: the kernel granted extensions in ${granted} of ${on.length} extension-on runs (rows.json grants)` : `no grant in any of ${on.length} extension-on runs (rows.json grants)`,
  };
}

/** The stale-work reproducer's out/provenance.json (its boots: unfixed and fixed kernels, accelerators). */
export function staleSliceEnvelope(out: string): Envelope {
  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8")) as Json;
  const boots = (Array.isArray(prov.boots) ? prov.boots : []) as Json[];
  if (boots.length === 0) throw new UserError(`${join(out, "provenance.json")}: expected the reproducer's boots`);
  const versions = [...new Set(boots.map((b) => String(b.kernelVersion ?? b.kernel)))];
  return {
    environment: {
      kind: "vm",
      detail: `the kit's VM, ${boots.length} boot${boots.length > 1 ? "s" : ""}: ${boots.map((b) => `${String(b.boot)} (${accelText(String(b.accel ?? "tcg"))}, ${String(b.cpus ?? "?")} vCPU)`).join("; ")} (out/provenance.json); emulated: kills, grants and revokes are the evidence, times are not`,
      timing: "emulated",
    },
    kernelRelease: versions.join(", "),
    configSha256: boots.find((b) => typeof b.configSha256 === "string")?.configSha256,
    sliceExtension: "the guest's: see out/cells.json (grants and revokes per arm)",
  };
}

/**
 * Makes a VM experiment's envelope again from its out/ files (records that the study runner wrote
 * before drivers could say where they ran: they claimed this machine's kernel): environment and
 * kernel from the driver's own provenance, a note that says so, SHA256SUMS again.
 */
export function rederiveVmEnvelope(dir: string): { environment: string; kernel: string } {
  const rec = readRecord(dir);
  const out = join(dir, "out");
  if (!existsSync(join(out, "provenance.json"))) throw new UserError(`${out}/provenance.json: missing (expected a study record of a VM experiment)`);
  const prov = JSON.parse(readFileSync(join(out, "provenance.json"), "utf8")) as Json;
  const env = prov.vm ? mechanismEnvelope(out) : Array.isArray(prov.boots) ? staleSliceEnvelope(out) : null;
  if (!env) throw new UserError(`${out}/provenance.json: neither a mechanism driver's (vm) nor the reproducer's (boots) provenance`);
  rec.environment = env.environment;
  rec.kernel = {
    release: env.kernelRelease,
    configSha256: env.configSha256 ?? unknown("the guest's kernel config hash is not in the driver's provenance"),
    preemptMode: env.preemptMode ?? rec.kernel.preemptMode,
    sliceExtension: env.sliceExtension ?? unknown("the guest's slice extension is in the driver's own files under out/"),
  };
  const note = "environment and kernel derived again from out/provenance.json (`slicelab record vm-envelope`): the runner had written this machine's kernel for a VM experiment";
  if (!rec.notes.includes(note)) rec.notes.push(note);
  writeRecord(dir, rec);
  if (existsSync(join(dir, "SHA256SUMS"))) writeSums(dir);
  return { environment: fieldText(rec.environment), kernel: fieldText(rec.kernel.release) };
}
