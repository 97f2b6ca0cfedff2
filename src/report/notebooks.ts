/**
 * Running the tslab notebooks and converting them to HTML with the Debian Jupyter
 * tools (python3-nbclient, jupyter-nbconvert). The tslab kernel spec lives in the
 * kit's work directory (`scripts/setup.sh jupyter` installs it), never in the
 * user's own Jupyter configuration.
 */
import { existsSync, readdirSync, readFileSync, mkdirSync, rmSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { execa } from "execa";
import { NO_BUILD_ENV } from "../util/build-guard.js";
import { UserError } from "../util/errors.js";
import { repoRoot, workDir } from "../util/paths.js";
import { recordedValues, type NotebookJson, type RecordedValue } from "./values.js";

/** The Python that has nbclient/nbconvert (Debian's, not a pyenv shim on PATH). */
export function python(): string {
  return process.env.SLICELAB_PYTHON ?? "/usr/bin/python3";
}

/** JUPYTER_PATH entry holding the kit's kernel specs. */
export function jupyterDataDir(): string {
  return join(workDir(), "jupyter", "share", "jupyter");
}

/** The environment for Jupyter processes: our kernel spec dir first, no user config leaking in. */
export function jupyterEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.JUPYTER_PATH = [jupyterDataDir(), process.env.JUPYTER_PATH].filter(Boolean).join(":");
  // Silences "Debugger warning: It seems that frozen modules are being used" on every start.
  env.PYDEVD_DISABLE_FILE_VALIDATION = "1";
  // No notebook cell builds a kernel or PostgreSQL (src/util/build-guard.ts): they read what
  // `slicelab prepare` made, so a cell never outlasts its timeout on a cold cache.
  env[NO_BUILD_ENV] = "a notebook cell: notebooks read what `slicelab prepare test` built";
  return env;
}

/** The kernel notebooks use. */
export const KERNEL = "tslab";

/** Throws a UserError saying what to install when the kernel spec or Python tools are missing. */
export async function checkJupyter(): Promise<void> {
  const spec = join(jupyterDataDir(), "kernels", KERNEL, "kernel.json");
  if (!existsSync(spec)) {
    throw new UserError(`the tslab Jupyter kernel is not installed (expected ${spec}); run \`bash scripts/setup.sh jupyter\``);
  }
  if (!existsSync(python())) throw new UserError(`${python()} not found: install the Debian package python3 (or set SLICELAB_PYTHON)`);
  const r = await execa(python(), ["-c", "import nbclient, nbformat, nbconvert"], { reject: false, env: jupyterEnv() });
  if (r.exitCode !== 0) {
    throw new UserError(`${python()} cannot import nbclient/nbconvert: install the Debian packages python3-nbclient and jupyter-nbconvert (\`bash scripts/setup.sh jupyter\`)`);
  }
}

/** The notebooks of the kit in execution order (file name order: 00-…, 01-…). */
export function listNotebooks(dir: string = join(repoRoot(), "notebooks")): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ipynb") && !f.startsWith("."))
    .sort()
    .map((f) => join(dir, f));
}

export interface ExecuteOptions {
  /** Overwrite the notebook with the executed one (only when every cell succeeded). */
  inPlace?: boolean;
  /** Where to write the executed notebook when not in place; default workDir()/notebooks/NAME. */
  out?: string;
  /** Per-cell timeout in seconds; default 300. */
  timeoutSeconds?: number;
}

/** A notebook cell that failed: names the notebook, the cell and shows its source and error. */
export class NotebookError extends UserError {
  readonly notebook: string;
  readonly cell: number;
  constructor(notebook: string, cell: number, source: string, error: string, stderr: string) {
    const parts = [`${notebook}: cell ${cell} failed: ${error || "(no message)"}`, "--- cell source ---", source.trimEnd()];
    if (stderr.trim()) parts.push("--- cell stderr ---", stderr.trimEnd());
    super(parts.join("\n"), 1);
    this.name = "NotebookError";
    this.notebook = notebook;
    this.cell = cell;
  }
}

function displayPath(path: string): string {
  const rel = relative(repoRoot(), path);
  return rel.startsWith("..") ? path : rel;
}

/**
 * Executes a notebook top to bottom in a fresh tslab kernel (cwd: the notebook's
 * folder). Returns the path of the executed notebook. Throws {@link NotebookError}
 * naming the failing cell, and writes nothing, when a cell fails.
 */
export async function executeNotebook(path: string, options: ExecuteOptions = {}): Promise<string> {
  const src = resolve(path);
  if (!existsSync(src)) throw new UserError(`${displayPath(src)}: no such notebook`);
  await checkJupyter();
  const dst = options.inPlace ? src : resolve(options.out ?? join(workDir(), "notebooks", basename(src)));
  mkdirSync(resolve(dst, ".."), { recursive: true });
  const timeout = options.timeoutSeconds ?? 300;
  const driver = join(repoRoot(), "src", "report", "execute-notebook.py");
  const r = await execa(python(), [driver, src, dst, String(timeout), KERNEL], {
    reject: false,
    env: jupyterEnv(),
    cwd: resolve(src, ".."),
    // Whole-notebook guard (one hour); the per-cell timeout normally fires first.
    timeout: 60 * 60 * 1000,
  });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  let result: { ok: boolean; cell?: number; source?: string; error?: string; stderr?: string };
  try {
    result = JSON.parse(line);
  } catch {
    throw new UserError(`${displayPath(src)}: the notebook runner failed (exit ${r.exitCode}):\n${(r.stderr || r.stdout).trim().split("\n").slice(-15).join("\n")}`);
  }
  if (!result.ok) {
    throw new NotebookError(displayPath(src), result.cell ?? -1, result.source ?? "", result.error ?? "", result.stderr ?? "");
  }
  return dst;
}

/** Reads an .ipynb file. */
export function readNotebook(path: string): NotebookJson {
  return JSON.parse(readFileSync(path, "utf8")) as NotebookJson;
}

/** The values a notebook recorded with `recordValue` (see src/report/values.ts). */
export function notebookValues(path: string): RecordedValue[] {
  return recordedValues(readNotebook(path), basename(path));
}

/**
 * Converts (executed) notebooks to HTML fragments with nbconvert's `basic` template:
 * cells and outputs only, no page shell, no scripts, no CSS and no references to
 * MathJax or require.js, so the page built around them works offline. Figures are
 * inline SVG; PNG outputs are data: URIs. One nbconvert process for all of them.
 * Returns the fragments in the order of `paths`.
 */
export async function notebooksToHtml(paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const srcs = paths.map((p) => resolve(p));
  for (const src of srcs) if (!existsSync(src)) throw new UserError(`${displayPath(src)}: no such notebook`);
  const names = srcs.map((s) => basename(s, ".ipynb"));
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UserError(`two notebooks named ${dup}.ipynb: convert them separately`);
  await checkJupyter();
  const tmp = join(workDir(), "tmp", `nbconvert-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const r = await execa(python(), ["-m", "nbconvert", "--to", "html", "--template", "basic", "--embed-images", "--output-dir", tmp, ...srcs], {
      reject: false,
      env: jupyterEnv(),
    });
    return names.map((n, i) => {
      const out = join(tmp, `${n}.html`);
      if (r.exitCode !== 0 || !existsSync(out)) {
        throw new UserError(`${displayPath(srcs[i]!)}: nbconvert --to html failed (exit ${r.exitCode}):\n${r.stderr.trim().split("\n").slice(-10).join("\n")}`);
      }
      return readFileSync(out, "utf8");
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** {@link notebooksToHtml} for one notebook. */
export async function notebookToHtml(path: string): Promise<string> {
  return (await notebooksToHtml([path]))[0]!;
}
