import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** The tools a bare machine is promised to have: POSIX sh, coreutils, grep, sed, gzip, mount. */
export const BARE_TOOLS = ["sh", "cat", "cp", "cut", "date", "df", "dirname", "echo", "env", "grep", "gzip", "head", "id", "ls", "mkdir", "mount", "umount", "mv", "nproc", "printf", "pwd", "rm", "rmdir", "sed", "sha256sum", "sleep", "tail", "tr", "uname", "zcat", "wc", "basename", "true", "false", "test", "timeout", "tee", "mktemp"];

/** A directory of links to BARE_TOOLS only (DIR/bin-bare), for a PATH without node, npm, cc or QEMU. */
export function bareBin(dir: string): string {
  const bin = join(dir, "bin-bare");
  mkdirSync(bin);
  for (const t of BARE_TOOLS) {
    const p = spawnSync("sh", ["-c", `command -v ${t}`], { encoding: "utf8" }).stdout.trim();
    if (p.startsWith("/")) symlinkSync(p, join(bin, t));
  }
  return bin;
}

/** Which of TOOLS a PATH reaches (each should be absent from a bare one). */
export function reachable(path: string, tools: readonly string[]): string[] {
  return tools.filter((t) => spawnSync("sh", ["-c", `command -v ${t}`], { env: { PATH: path }, encoding: "utf8" }).status === 0);
}
