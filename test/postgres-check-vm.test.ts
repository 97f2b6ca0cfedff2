// `slicelab postgres check --vm`: the pieces that need no VM (the schedule subset, debugfs
// rseq/stats, the guest script, the CLI's refusals). The run itself is in vm-e2e.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execa } from "execa";
import { join } from "node:path";
import { guestCheckScript, parseRseqStats, scheduleSubset, statsDelta } from "../src/postgres/check-vm.js";
import { ParseError, UserError } from "../src/util/errors.js";
import { repoRoot } from "../src/util/paths.js";

const schedule = `# comment
test: test_setup

# a 3-wide group
test: boolean char name
test: copy insert   # trailing comment
`;

test("scheduleSubset keeps a prefix of the test groups and counts its tests", () => {
  const two = scheduleSubset(schedule, 2);
  assert.equal(two.text, "test: test_setup\ntest: boolean char name\n");
  assert.deepEqual(two.tests, ["test_setup", "boolean", "char", "name"]);
  assert.equal(two.groups, 2);
  assert.equal(two.groupsInSchedule, 3);
  assert.equal(two.widest, 3);
  const all = scheduleSubset(schedule, undefined);
  assert.equal(all.tests.length, 6);
  assert.equal(all.text.split("\n").filter(Boolean).length, 3);
});

test("scheduleSubset keeps PostgreSQL 15's ignore: lines that precede a kept group, and no others", () => {
  const pg15 = "test: test_setup\ntest: tablespace\n# Note: the ignore: line does not skip random\nignore: random\ntest: select random portals\ntest: last\n";
  const two = scheduleSubset(pg15, 2);
  assert.equal(two.text, "test: test_setup\ntest: tablespace\n");
  assert.deepEqual(two.ignored, []);
  assert.equal(two.groupsInSchedule, 4, "an ignore: line is not a group");
  const three = scheduleSubset(pg15, 3);
  assert.equal(three.text, "test: test_setup\ntest: tablespace\nignore: random\ntest: select random portals\n");
  assert.deepEqual(three.ignored, ["random"]);
  assert.deepEqual(three.tests, ["test_setup", "tablespace", "select", "random", "portals"]);
});

test("scheduleSubset refuses a bad line (file, line, found) and an out-of-range --groups", () => {
  assert.throws(() => scheduleSubset("test: a\nskip: b\n", 1, "/x/parallel_schedule"), (e: unknown) => e instanceof ParseError && /parallel_schedule:2/.test(String((e as Error).message)) && /skip: b/.test((e as Error).message));
  assert.throws(() => scheduleSubset("test: a\nignore:\n", 1, "/x/parallel_schedule"), (e: unknown) => e instanceof ParseError && /parallel_schedule:2/.test(String((e as Error).message)));
  assert.throws(() => scheduleSubset(schedule, 4), (e: unknown) => e instanceof UserError && /from 1 to 3/.test((e as Error).message));
  assert.throws(() => scheduleSubset(schedule, 0), UserError);
});

test("parseRseqStats reads debugfs rseq/stats; unreadable is null; the delta is per counter", () => {
  const before = parseRseqStats("exit:   100\nsgrant:  5\nsexpir: 1\n");
  const after = parseRseqStats("exit:   180\nsgrant:  47\nsexpir: 3\nnew: 1\n");
  assert.deepEqual(statsDelta(before, after), { exit: 80, sgrant: 42, sexpir: 2 });
  assert.equal(parseRseqStats("unavailable\n"), null);
  assert.equal(statsDelta(null, after), null);
  assert.throws(() => parseRseqStats("sgrant 5\n", "after.txt"), (e: unknown) => e instanceof ParseError && /after\.txt:1/.test((e as Error).message));
});

test("the guest script runs make check as the cluster user without a temporary install, with the server's rseq registration", () => {
  const s = guestCheckScript({ tree: "/w/src", probe: "/c/probe", user: "slicelab", scheduleFile: "/o/schedule", tempConfig: "/o/t.conf" });
  assert.match(s, /runuser -u slicelab -- env GLIBC_TUNABLES=glibc\.pthread\.rseq=0 .*make -C '\/w\/src\/src\/test\/regress' check NO_TEMP_INSTALL=1 TEMP_CONFIG='\/o\/t\.conf'/);
  assert.match(s, /cp '\/o\/schedule' '\/w\/src\/src\/test\/regress\/parallel_schedule'/);
  // the probe and both stats reads bracket the check; the exit status is make's
  // whether rseq debugging was on is read before the check (issue 27: every run records it)
  assert.ok(s.indexOf("cat /sys/kernel/debug/rseq/debug > \"$O/rseq-debug.txt\"") > 0 && s.indexOf("rseq-debug.txt") < s.indexOf("check.log"));
  const order = ["probe.txt", "rseq-stats-before", "check.log", "rseq-stats-after", "exit $rc"].map((k) => s.indexOf(k));
  assert.ok(order.every((v, i) => v > 0 && (i === 0 || v > order[i - 1]!)), `order ${order}`);
});

test("slicelab postgres: the --vm options are refused without --vm, and --vm outside check", async () => {
  const cli = join(repoRoot(), "bin", "slicelab.js");
  const a = await execa("node", [cli, "postgres", "check", "--groups", "2", "--source", "/nonexistent"], { reject: false });
  assert.equal(a.exitCode, 2);
  assert.match(a.stderr, /--groups belongs to `slicelab postgres check --vm`/);
  const b = await execa("node", [cli, "postgres", "build", "--vm"], { reject: false });
  assert.equal(b.exitCode, 2);
  assert.match(b.stderr, /--vm belongs to `slicelab postgres check`/);
});
