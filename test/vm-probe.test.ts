// The slice-extension probe built with the host's cc and run on the host
// (whatever its kernel offers), and the parser's error on foreign output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { release } from "node:os";
import { execa } from "execa";
import { buildProbe, parseProbeOutput } from "../src/vm/probe.js";
import { ParseError } from "../src/util/errors.js";

test("the probe runs on the host and reports this kernel and glibc's rseq registration", async () => {
  const bin = await buildProbe();
  const r = await execa(bin, []);
  const rep = parseProbeOutput(r.stdout, "host run");
  assert.equal(rep.kernelRelease, release());
  assert.ok(rep.auxvRseqFeatureSize >= 20, `feature size ${rep.auxvRseqFeatureSize}`);
  // glibc registers its own area by default (Debian 12's 2.36 reports 20 bytes in use).
  assert.ok(rep.glibcRseqSize > 0);
  // The extension is usable exactly when SET succeeded and GET reports it enabled.
  assert.equal(rep.sliceExtensionUsable, rep.prctlSet === "ok" && rep.prctlGetAfter === 1);

  // With glibc's registration turned off the probe registers its own, longer area.
  const t = await execa(bin, [], { env: { GLIBC_TUNABLES: "glibc.pthread.rseq=0" } });
  const rep2 = parseProbeOutput(t.stdout, "host run, rseq=0");
  assert.equal(rep2.glibcRseqSize, 0);
  assert.match(rep2.rseqRegistration ?? "", /^own:(\d+)$/);
  assert.ok(Number(/^own:(\d+)$/.exec(rep2.rseqRegistration!)![1]) > 32);
});

test("parseProbeOutput names the line it cannot read", () => {
  assert.throws(
    () => parseProbeOutput("kernel_release=7.2.13\nSegmentation fault\n", "console.log"),
    (e: unknown) => e instanceof ParseError && e.message === 'console.log:2: expected key=value, found "Segmentation fault"',
  );
  assert.throws(() => parseProbeOutput("kernel_release=7.2.13\n", "x"), /x:2: expected a line "auxv_rseq_feature_size=…", found none/);
});
