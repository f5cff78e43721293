// One plan, slice by slice: shared by the worker and by the single-file page (which has no worker file to
// load and runs the same slices on the main thread, yielding between them).
import type { ReportedImport } from './import-run';
import type {
  Config,
  Decoded,
  Engine,
  GpuPlan,
  GpuServingPlan,
  ImportFormat,
  MeasuredFileRead,
  Plan,
  PlanRequest,
  Problem,
  ServingPlan,
  ServingPlanRequest,
} from './engine';

/** Layouts per slice: a progress step, and how long the page or the worker is busy between messages. */
const SLICE_LAYOUTS = 4;

export interface PlanProgress {
  layoutsDone: number;
  layouts: number;
  fitting: number;
  evaluated: number;
}

/** What the worker does: a plan (training or serving), or an import or a measured file read off the main thread. */
export type PlanMessage =
  | { id: number; kind: 'plan'; request: PlanRequest }
  | { id: number; kind: 'which-gpu'; request: PlanRequest }
  | { id: number; kind: 'serving-plan'; request: ServingPlanRequest }
  | { id: number; kind: 'serving-which-gpu'; request: ServingPlanRequest }
  | { id: number; kind: 'import'; config: Config; text: string }
  | { id: number; kind: 'config-import'; config: Config; text: string; format: ImportFormat | '' }
  | { id: number; kind: 'measured'; text: string };
export type PlanReply =
  | { id: number; kind: 'progress'; progress: PlanProgress }
  | { id: number; kind: 'done'; plan: Plan }
  | { id: number; kind: 'gpus'; gpus: GpuPlan[] }
  | { id: number; kind: 'serving-plan'; plan: ServingPlan }
  | { id: number; kind: 'serving-gpus'; gpus: GpuServingPlan[] }
  | { id: number; kind: 'imported'; result: Decoded }
  | { id: number; kind: 'config-imported'; result: ReportedImport }
  | { id: number; kind: 'measured'; file: MeasuredFileRead }
  | { id: number; kind: 'error'; problems: Problem[] };

export async function runPlan(
  engine: Engine,
  request: PlanRequest,
  onProgress: (progress: PlanProgress) => void,
  yieldBetween: () => Promise<void> = () => Promise.resolve(),
  cancelled: () => boolean = () => false,
): Promise<Plan> {
  const first = engine.plan({ ...request, layoutBegin: 0, layoutEnd: Math.min(1, request.layoutEnd || 1) });
  const total: Plan = { ...first, rows: [...first.rows] };
  const layouts = first.layouts;
  let done = Math.min(1, layouts);
  onProgress({ layoutsDone: done, layouts, fitting: total.fitting, evaluated: total.evaluated });
  while (done < layouts) {
    await yieldBetween();
    if (cancelled()) throw new Error('cancelled');
    const end = Math.min(layouts, done + SLICE_LAYOUTS);
    // The evaluation budget is the whole plan's: each slice gets what the ones before it left.
    const slice = engine.plan({ ...request, layoutBegin: done, layoutEnd: end, maxEvaluations: request.maxEvaluations - total.evaluated });
    total.rows.push(...slice.rows);
    total.candidates += slice.candidates;
    total.evaluated += slice.evaluated;
    total.pruned += slice.pruned;
    total.fitting += slice.fitting;
    total.dropped += slice.dropped;
    done = end;
    onProgress({ layoutsDone: done, layouts, fitting: total.fitting, evaluated: total.evaluated });
  }
  // The slices kept their fronts, their fastest rows and maxRows more each: marked again and cut to maxRows (the
  // fastest kept), these are the whole plan's rows, as the CLI's.
  const { rows: kept, recommended } = engine.finishPlan(total.rows, request.maxRows);
  // Whatever no slice returned, or the cut leaves out, is dropped: fitting rows not listed.
  return { ...total, rows: kept, dropped: total.fitting - kept.length, recommended };
}
