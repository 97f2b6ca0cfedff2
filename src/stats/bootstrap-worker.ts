/**
 * A worker of the bootstrap (src/stats/bootstrap.ts, drawInThreads): draws replicates r0 … r1 − 1
 * into the shared arrays and reports through its status word (started, done, failed).
 */
import { workerData } from "node:worker_threads";
import { fillReplicates, WORKER_DONE, WORKER_FAILED, WORKER_STARTED } from "./bootstrap.js";

interface Job {
  xa: Float64Array;
  xb: Float64Array;
  state: [number, number, number, number];
  r0: number;
  r1: number;
  meanDiffPct: Float64Array;
  sdRatio: Float64Array;
  status: Int32Array;
  index: number;
}

const job = workerData as Job;
Atomics.store(job.status, job.index, WORKER_STARTED);
Atomics.notify(job.status, job.index);
try {
  fillReplicates(job.xa, job.xb, job.state, job.r0, job.r1, job.meanDiffPct, job.sdRatio);
  Atomics.store(job.status, job.index, WORKER_DONE);
} catch {
  Atomics.store(job.status, job.index, WORKER_FAILED);
}
Atomics.notify(job.status, job.index);
