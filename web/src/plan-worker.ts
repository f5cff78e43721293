// The on-demand module off the main thread: a plan (the layouts in slices, a progress message after each, the
// Pareto front over the joined slices at the end; the page cancels by terminating the worker), a serving plan (one
// call), or a config.json import or a measured file, which may be megabytes of JSON to parse.
import { loadPlannerEngine, MembudgetError } from './engine';
import { importText, reportedImport } from './import-run';
import { runPlan, type PlanMessage, type PlanReply } from './plan-run';

const scope = self as unknown as { postMessage(message: PlanReply): void; onmessage: ((event: MessageEvent<PlanMessage>) => void) | null };

scope.onmessage = (event) => {
  const message = event.data;
  const id = message.id;
  void (async () => {
    try {
      const engine = await loadPlannerEngine();
      if (message.kind === 'import') {
        scope.postMessage({ id, kind: 'imported', result: engine.importHfConfig(message.config, message.text) });
        return;
      }
      if (message.kind === 'config-import') {
        const imported = await importText(engine, message.config, message.text, message.format);
        scope.postMessage({ id, kind: 'config-imported', result: reportedImport(imported) });
        return;
      }
      if (message.kind === 'which-gpu') {
        scope.postMessage({ id, kind: 'gpus', gpus: engine.planEachGpu(message.request) });
        return;
      }
      if (message.kind === 'serving-plan') {
        scope.postMessage({ id, kind: 'serving-plan', plan: engine.planServing(message.request) });
        return;
      }
      if (message.kind === 'serving-which-gpu') {
        scope.postMessage({ id, kind: 'serving-gpus', gpus: engine.planServingEachGpu(message.request) });
        return;
      }
      if (message.kind === 'measured') {
        scope.postMessage({ id, kind: 'measured', file: engine.readMeasuredFile(message.text) });
        return;
      }
      const plan = await runPlan(engine, message.request, (progress) => scope.postMessage({ id, kind: 'progress', progress }));
      scope.postMessage({ id, kind: 'done', plan });
    } catch (error) {
      const problems =
        error instanceof MembudgetError ? error.problems : [{ field: '', message: error instanceof Error ? error.message : String(error) }];
      scope.postMessage({ id, kind: 'error', problems });
    }
  })();
};
