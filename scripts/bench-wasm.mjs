// The planner's speed in the wasm build against the native build, in one run (README "Speed"):
// the same plans through build/bench/membudget_bench (Google Benchmark) and through the planner's .wasm
// under Node. Usage: node scripts/bench-wasm.mjs  (after npm run build; needs libbenchmark-dev).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import createMembudgetPlanner from '../web/src/wasm/membudget-planner.js';

const ROOT = resolve(import.meta.dirname, '..');
const GPUS = [64, 512, 4096, 16384, 131072];

const native = spawnSync(
  resolve(ROOT, 'build/bench/membudget_bench'),
  ['--benchmark_filter=Plan405B|Kernel|Evaluate', '--benchmark_format=json', '--benchmark_min_time=0.5'],
  { encoding: 'utf8', maxBuffer: 64 << 20 },
);
if (native.status !== 0) throw new Error(`native benchmark failed: ${native.stderr}`);
/** @type {{ name: string; cpu_time: number; time_unit: 'ns' | 'us' | 'ms' | 's' }[]} */
const nativeRuns = JSON.parse(native.stdout).benchmarks;
/** CPU seconds per iteration of a native benchmark. @param {string} name */
const nativeCpu = (name) => {
  const run = nativeRuns.find((b) => b.name === name);
  if (!run) throw new Error(`no native benchmark ${name}`);
  return run.cpu_time * { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 }[run.time_unit];
};

const planner = await createMembudgetPlanner({ wasmBinary: readFileSync(resolve(ROOT, 'web/src/wasm/membudget-planner.wasm')) });
const base = planner.decodeQuery(
  'model=llama-3.1-405b&gpu=h100-80gb&tp=8&pp=16&dp=128&seq=8192&ckpt=selective&sp=true&microbatches=16',
).config;

/** @param {number} gpus */
function timeWasm(gpus) {
  const run = () => planner.plan({ ...planner.defaultPlanRequest(), base, gpus, globalBatch: 2048 });
  let result = run();
  // Enough repetitions for half a second, as Google Benchmark's --benchmark_min_time=0.5 on the native side.
  let reps = 0;
  const start = performance.now();
  while (performance.now() - start < 500) {
    result = run();
    ++reps;
  }
  return { seconds: (performance.now() - start) / 1000 / reps, result };
}

console.log(`machine: ${cpus().length} × ${cpus()[0].model}, Node ${process.version}`);
console.log('single ledger (native, CPU time):');
for (const name of [
  'BM_EvaluateChapter70B',
  'BM_KernelChapter70B',
  'BM_KernelMembudget70B',
  'BM_EvaluateMembudget405B',
  'BM_KernelMembudget405B',
])
  console.log(`  ${name.padEnd(26)} ${(nativeCpu(name) * 1e9).toFixed(0).padStart(9)} ns`);
console.log('\nplan, Llama-3.1-405B, seq 8192, global batch 2048 (every layout, ZeRO stage, SP, checkpointing, micro-batch):');
console.log('  GPUs     layouts  candidates  evaluated   native ms   wasm ms  wasm/native  wasm candidates/s  wasm evaluated/s');
for (const gpus of GPUS) {
  const wasm = timeWasm(gpus);
  const nativeSeconds = nativeCpu(`BM_Plan405B/${gpus}`);
  const r = wasm.result;
  console.log(
    `  ${String(gpus).padEnd(8)} ${String(r.layouts).padStart(7)} ${String(r.candidates).padStart(11)} ${String(r.evaluated).padStart(10)} ` +
      `${(nativeSeconds * 1e3).toFixed(2).padStart(11)} ${(wasm.seconds * 1e3).toFixed(2).padStart(9)} ${(wasm.seconds / nativeSeconds).toFixed(2).padStart(12)} ` +
      `${(r.candidates / wasm.seconds / 1e6).toFixed(2).padStart(16)}M ${(r.evaluated / wasm.seconds / 1e6).toFixed(2).padStart(15)}M`,
  );
}

// Issue 31's native goals, each as a ratio to its budget: membudget's kernel for the 70B at most 8 × the chapter's
// (both one ledger's peak in numbers only), and the 16,384-GPU plan with step times in at most 5 ms.
const KERNEL_GOAL_RATIO = 8;
const PLAN_GOAL_SECONDS = 5e-3;
const kernelNs = nativeCpu('BM_KernelMembudget70B') * 1e9;
const chapterNs = nativeCpu('BM_KernelChapter70B') * 1e9;
const kernelRatio = kernelNs / chapterNs;
const planSeconds = nativeCpu('BM_Plan405B/16384');
/** @param {boolean} met */
const verdict = (met) => (met ? 'met' : 'not met');
console.log('\ngoals (native, CPU time):');
console.log(
  `  70B kernel: ${kernelNs.toFixed(0)} ns = ${kernelRatio.toFixed(1)} × the chapter's ${chapterNs.toFixed(1)} ns ` +
    `(goal ≤ ${KERNEL_GOAL_RATIO} ×): ${verdict(kernelRatio <= KERNEL_GOAL_RATIO)}`,
);
console.log(
  `  16,384-GPU plan: ${(planSeconds * 1e3).toFixed(1)} ms native = ${(planSeconds / PLAN_GOAL_SECONDS).toFixed(2)} × ` +
    `the ${PLAN_GOAL_SECONDS * 1e3} ms goal: ${verdict(planSeconds <= PLAN_GOAL_SECONDS)}`,
);
