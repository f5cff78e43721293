// A plan's rows as the page reads them, and as they cross the wasm boundary: one number per column of the
// module's planRowColumns() (engine/src/plan/plan_row.cpp), a Float64Array instead of an object per row.
import type { Checkpointing, PlanRowColumn, Verdict } from './wasm/membudget.js';

/** One fitting configuration of a plan (the CLI's `plan --json` row). */
export interface PlanRow {
  tp: number;
  pp: number;
  dp: number;
  cp: number;
  ep: number;
  zero: number;
  mb: number;
  microbatches: number;
  sp: boolean;
  ckpt: Checkpointing;
  firstStageLayers: number;
  lastStageLayers: number;
  peakBytes: number;
  headroomBytes: number;
  peakStage: number;
  verdict: Verdict;
  recomputeOverhead: number;
  bubble: number;
  tpCrossesNode: boolean;
  cpCrossesNode: boolean;
  pareto: boolean;
  /** The step-time estimate of the row (0 where the GPU has no speed figures). */
  stepTimeSeconds: number;
  tokensPerSecondPerGpu: number;
  mfu: number;
  /** The run on train_tokens at that step (0 where it is not set; the cost 0 without a price). */
  runDays: number;
  runGpuHours: number;
  runCostUsd: number;
}

// A plan row crosses as one number per column of the module's planRowColumns() (engine/src/plan/plan_row.cpp).
export function decodeRows(flat: Float64Array, columns: readonly PlanRowColumn[]): PlanRow[] {
  const rows: PlanRow[] = [];
  for (let i = 0; i + columns.length <= flat.length; i += columns.length) {
    const row: Record<string, number | boolean | string> = {};
    columns.forEach((column, k) => {
      const value = flat[i + k]!;
      row[column.key] = column.kind === 'boolean' ? value !== 0 : column.kind === 'choice' ? (column.choices[value] ?? '') : value;
    });
    rows.push(row as unknown as PlanRow);
  }
  return rows;
}

export function encodeRows(rows: readonly PlanRow[], columns: readonly PlanRowColumn[]): Float64Array {
  const flat = new Float64Array(rows.length * columns.length);
  rows.forEach((r, i) => {
    const row = r as unknown as Record<string, number | boolean | string>;
    columns.forEach((column, k) => {
      const value = row[column.key];
      flat[i * columns.length + k] =
        column.kind === 'boolean'
          ? value
            ? 1
            : 0
          : column.kind === 'choice'
            ? Math.max(0, column.choices.indexOf(String(value)))
            : Number(value);
    });
  });
  return flat;
}
