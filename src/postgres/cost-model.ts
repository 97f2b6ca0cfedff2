/**
 * The patch's cost per transaction from measured parts: hook executions per
 * transaction (every covered acquire and its release, nested ones too,
 * counted by the patch: slicelab postgres lock-ops) × ns added per hook
 * execution (slicelab postgres hook-cost: "off" is the switch-off branch,
 * "all" the user-space request protocol with the v2 counters) ÷ the CPU time
 * one transaction takes. The upper figure uses the upper end of the ns
 * interval; a negative lower end is reported as measured.
 */
import { UserError } from "../util/errors.js";

export interface CostInterval {
  mean: number;
  ci: [number, number];
}

export interface CostModelInput {
  hookExecutionsPerTransaction: number;
  nsPerHookExecution: { off: CostInterval; all: CostInterval };
  cpuNsPerTransaction: number;
}

export interface CostModelArm {
  nsPerTransaction: number;
  nsPerTransactionUpper: number;
  pct: number;
  pctUpper: number;
}

export function patchCostModel(inp: CostModelInput): { off: CostModelArm; all: CostModelArm } {
  if (!(inp.hookExecutionsPerTransaction >= 0)) throw new UserError(`cost model: hook executions per transaction must be ≥ 0, found ${inp.hookExecutionsPerTransaction}`);
  if (!(inp.cpuNsPerTransaction > 0)) throw new UserError(`cost model: CPU ns per transaction must be > 0, found ${inp.cpuNsPerTransaction}`);
  const arm = (x: CostInterval): CostModelArm => {
    const ns = inp.hookExecutionsPerTransaction * x.mean;
    const up = inp.hookExecutionsPerTransaction * x.ci[1];
    return { nsPerTransaction: ns, nsPerTransactionUpper: up, pct: (100 * ns) / inp.cpuNsPerTransaction, pctUpper: (100 * up) / inp.cpuNsPerTransaction };
  };
  return { off: arm(inp.nsPerHookExecution.off), all: arm(inp.nsPerHookExecution.all) };
}
