/**
 * The build guard. Kernel and PostgreSQL builds take minutes to tens of minutes, so they happen in
 * one place: `slicelab prepare test|e2e` (which `npm test` and `npm run test:e2e` run first, with a
 * progress line and the time of each step). Everything that runs afterwards — every notebook cell,
 * and every test file under `npm test` — runs with SLICELAB_NO_BUILD set to the reason, and a build
 * started there is refused at once, naming what would have been built and how to prepare it.
 */
import { UserError } from "./errors.js";

export const NO_BUILD_ENV = "SLICELAB_NO_BUILD";

/** Why builds are refused in this process (the variable's value), or undefined when they are allowed. */
export function buildRefusal(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = env[NO_BUILD_ENV];
  return v === undefined || v === "" || v === "0" ? undefined : v;
}

/** Throws when builds are refused here; `what` names the build ("kernel 7.2.13 slice-ext+vm"). */
export function assertBuildAllowed(what: string, env: NodeJS.ProcessEnv = process.env): void {
  const why = buildRefusal(env);
  if (why === undefined) return;
  throw new UserError(
    `refusing to build ${what} here (${NO_BUILD_ENV}: ${why}): builds belong to \`slicelab prepare test\` ` +
      "(or `prepare e2e`), which `npm test` and `npm run test:e2e` run before anything else",
  );
}
