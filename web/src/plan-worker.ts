// The planner off the main thread: the layouts in slices, a progress message after each, the Pareto front
// over the joined slices at the end. The page cancels by terminating the worker.
import { loadPlannerEngine, MembudgetError } from './engine';
import { runPlan, type PlanMessage, type PlanReply } from './plan-run';

const scope = self as unknown as { postMessage(message: PlanReply): void; onmessage: ((event: MessageEvent<PlanMessage>) => void) | null };

scope.onmessage = (event) => {
  const { id, request } = event.data;
  void (async () => {
    try {
      const engine = await loadPlannerEngine();
      const plan = await runPlan(engine, request, (progress) => scope.postMessage({ id, kind: 'progress', progress }));
      scope.postMessage({ id, kind: 'done', plan });
    } catch (error) {
      const problems = error instanceof MembudgetError ? error.problems : [{ field: '', message: error instanceof Error ? error.message : String(error) }];
      scope.postMessage({ id, kind: 'error', problems });
    }
  })();
};
