/**
 * Progress of a series. On a terminal: one bar rewritten in place
 * (`[#####-----] 5/32 A  ETA 3m20s`); otherwise one plain line per event, so that
 * logs and CI output stay readable.
 */
export type ProgressEvent =
  | { kind: "series"; total: number; done: number; dir: string }
  | { kind: "start"; k: number; total: number; id: string; variant: string; etaSeconds: number | null }
  | { kind: "workload"; k: number; total: number; id: string; variant: string; workload: string; logFile: string }
  | { kind: "done"; k: number; total: number; id: string; variant: string; tps: number[]; seconds: number; etaSeconds: number | null };

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, "0")}m` : m > 0 ? `${m}m${String(r).padStart(2, "0")}s` : `${r}s`;
}

function bar(k: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.round((k / total) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

/** A progress printer for `stream`: a bar when it is a TTY, plain lines otherwise. */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): (e: ProgressEvent) => void {
  const tty = stream.isTTY === true;
  let lastBar = "";
  const eta = (s: number | null) => (s === null ? "ETA ?" : `ETA ${formatDuration(s)}`);
  const fmtTps = (t: number[]) => t.map((x) => x.toFixed(1)).join(", ");
  return (e) => {
    if (e.kind === "series") {
      stream.write(`series ${e.dir}: ${e.done}/${e.total} runs already done\n`);
      return;
    }
    if (tty) {
      if (e.kind === "workload") return;
      const k = e.kind === "done" ? e.k : e.k - 1;
      const text = `${bar(k, e.total)} ${e.kind === "done" ? e.k : e.k}/${e.total} ${e.variant}  ${eta(e.etaSeconds)}${e.kind === "done" ? `  last tps ${fmtTps(e.tps)}` : ""}`;
      stream.write(`\r${text.padEnd(lastBar.length)}`);
      lastBar = text;
      if (e.kind === "done" && e.k === e.total) stream.write("\n");
      return;
    }
    if (e.kind === "done") {
      stream.write(`run ${e.k}/${e.total} ${e.id} (${e.variant}): tps ${fmtTps(e.tps)} in ${e.seconds.toFixed(1)} s, ${eta(e.etaSeconds)}\n`);
    }
  };
}
