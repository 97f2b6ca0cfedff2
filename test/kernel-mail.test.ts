// The LKML mail for the rseq fix and the patch the kit builds say the same thing: the same
// diff, the same subject, and a Fixes: tag in the kernel's form (12 hex digits and the subject
// of the commit it fixes). The Signed-off-by is left to the person who sends it, and the test
// says so rather than passing over it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../src/util/paths.js";

const root = repoRoot();
const mail = readFileSync(join(root, "kernel-patches/linux/mail/rseq-slice-stale-work.txt"), "utf8");
const patch = readFileSync(
  join(root, "kernel-patches/linux/series/rseq-slice-stale-work/0001-rseq-validate-slice_ctrl-only-while-granted.patch"),
  "utf8",
);

/** The diff of a mail or patch file: from its first `--- a/` line to the first line that is
 * not part of a hunk (an empty line, or the mail signature's `--`). */
export function diffOf(text: string): string {
  const start = text.search(/^--- a\//m);
  assert.ok(start >= 0, "no diff in the text");
  const lines = text.slice(start).split("\n");
  const out: string[] = [];
  for (const l of lines) {
    if (/^(--- |\+\+\+ |@@ |[ +-])/.test(l) && l !== "--" && l !== "-- ") out.push(l);
    else break;
  }
  return out.join("\n").trimEnd();
}

const subjectOf = (text: string) => /^Subject: (.*)$/m.exec(text)?.[1];
const fixesOf = (text: string) => [...text.matchAll(/^Fixes: (.*)$/gm)].map((m) => m[1]);

test("the mail carries the same diff and subject as the series patch the kit builds", () => {
  assert.equal(diffOf(mail), diffOf(patch));
  assert.match(diffOf(patch), /^\+\s+rseq_slice_validate_ctrl\(ctrl\.all\);$/m);
  assert.equal(subjectOf(mail), subjectOf(patch));
});

test("Fixes: names the commit by 12 hex digits and its subject, the same in both", (t) => {
  const tag = /^[0-9a-f]{12} \("rseq: Implement syscall entry work for time slice extensions"\)$/;
  const inMail = fixesOf(mail).filter((f) => tag.test(f as string));
  assert.equal(inMail.length, 1, `mail's Fixes: lines ${JSON.stringify(fixesOf(mail))}`);
  assert.deepEqual(fixesOf(patch), inMail);
  if (/^Signed-off-by: \(/m.test(mail)) t.diagnostic("Signed-off-by: still to be added by the sender (a person, not the kit)");
});
