// Hand-written types of membudget-planner.js: the page's module plus the planner, built from the same
// wasm/bindings.cpp with MEMBUDGET_WASM_PLANNER and loaded only by the planner's Web Worker.
import type { Config, MembudgetModule, ModuleOptions, RawPlan } from './membudget.js';

export interface PlannerModule extends MembudgetModule {
  /** The fitting layouts of layouts [layoutBegin, layoutEnd) (0: to the end); Pareto marked only for a whole plan. */
  plan(
    base: Config,
    gpus: number,
    globalBatch: number,
    tpAcrossNodes: boolean,
    unevenPipeline: boolean,
    maxMicroBatch: number,
    maxCp: number,
    includeTight: boolean,
    layoutBegin: number,
    layoutEnd: number,
    maxRows: number,
  ): RawPlan;
  /** Marks the Pareto front over joined slices (flat rows, as RawPlan.rows) and puts it first. */
  markPareto(rows: Float64Array): Float64Array;
}

declare function createMembudgetPlanner(options?: ModuleOptions): Promise<PlannerModule>;
export default createMembudgetPlanner;
