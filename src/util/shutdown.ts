/**
 * Shutdown hooks: one place that reacts to SIGINT/SIGTERM for the whole kit, so
 * that benchmark children (pgbench, CPU hogs) and collectors (perf) die before
 * their cluster stops. Clusters (src/postgres/cluster.ts), the benchmark runner
 * and the collectors register here; this module knows none of them.
 */

type Hook = () => Promise<void> | void;
const hooks: Hook[] = [];
const exitHooks: (() => void)[] = [];
let handlersInstalled = false;
let shuttingDown = false;

async function runHooks(): Promise<void> {
  for (const h of [...hooks].reverse()) {
    try {
      await h();
    } catch {
      /* keep going: every hook gets its chance */
    }
  }
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const onSignal = (signal: NodeJS.Signals, code: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    process.stderr.write(`\nslicelab: ${signal}: stopping benchmark processes and clusters…\n`);
    void runHooks().finally(() => process.exit(code));
  };
  process.on("SIGINT", () => onSignal("SIGINT", 130));
  process.on("SIGTERM", () => onSignal("SIGTERM", 143));
  process.on("exit", () => {
    // Last resort when the process exits without having stopped what it started.
    for (const h of exitHooks) h();
  });
}

/**
 * Registers a function run on SIGINT/SIGTERM before the process exits (latest
 * first). Returns a function that removes it.
 */
export function addShutdownHook(hook: Hook): () => void {
  installHandlers();
  hooks.push(hook);
  return () => {
    const i = hooks.lastIndexOf(hook);
    if (i >= 0) hooks.splice(i, 1);
  };
}

/** A synchronous last resort run when the process exits (once the signal handlers are installed). */
export function addExitHook(hook: () => void): void {
  exitHooks.push(hook);
}

/** True once SIGINT or SIGTERM has started the shutdown hooks. */
export function isShuttingDown(): boolean {
  return shuttingDown;
}
