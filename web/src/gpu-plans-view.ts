// "Which GPU?": the planner's search on every GPU preset (the CLI's `plan --which-gpu`), one row per GPU; a row
// loads that GPU's recommended layout into the checklist. The planner view (planner-view.ts) runs the search.
import type { Config, GpuPlan, PlanRequest } from './engine';
import { loadPlannerEngine } from './engine';
import { el, replaceChildren } from './dom';
import { formatBytes, formatCount, formatDays, formatPercentTenth, UNIT_LABEL, type Unit } from './format';

/** One row per GPU preset: how many layouts fit, the recommended one and its speed; a row loads it (without a
 * price, which is one GPU type's, as the engine's plans have none). */
export function renderGpuPlans(
  config: Config,
  request: PlanRequest,
  gpus: GpuPlan[],
  unit: Unit,
  onLoad: (config: Config) => void,
  status: HTMLElement,
  table: HTMLElement,
): void {
  const refused = gpus.every((g) => g.errors.length > 0);
  if (gpus.length === 0 || refused) {
    replaceChildren(table);
    replaceChildren(status, el('span', { class: 'error' }, gpus[0]?.errors.map((p) => p.message).join('; ') ?? 'no GPU presets'));
    return;
  }
  const run = config.train_tokens > 0;
  const fastest = gpus.reduce<GpuPlan | undefined>(
    (best, g) =>
      g.recommended &&
      g.recommended.stepTimeSeconds > 0 &&
      (!best || g.recommended.tokensPerSecondPerGpu > best.recommended!.tokensPerSecondPerGpu)
        ? g
        : best,
    undefined,
  );
  replaceChildren(
    status,
    `The same job on ${formatCount(gpus.length)} GPUs (${formatCount(request.gpus)} of each, global batch ${formatCount(request.globalBatch)}): each GPU's fastest layout that fits${fastest ? `; fastest per GPU: ${fastest.label}` : ''} (estimated). Prices differ by GPU: set one GPU and its price for the run's cost. Click a row to load it.`,
  );
  const label = UNIT_LABEL[unit];
  const head = [
    'GPU',
    `capacity ${label}`,
    'layouts that fit',
    'recommended layout',
    `peak ${label}`,
    'tokens/s/GPU',
    'MFU',
    ...(run ? ['run days', 'GPU-hours'] : []),
  ];
  const body = gpus.map((g) => {
    const r = g.recommended;
    const cells = (values: string[]) => values.map((v) => el('td', {}, v));
    if (!r)
      return el(
        'tr',
        { 'data-gpu': g.gpu },
        ...cells([g.label, formatBytes(g.capacityBytes, unit), formatCount(g.fitting)]),
        el('td', { colspan: head.length - 3 }, g.errors.map((p) => p.message).join('; ') || 'nothing fits'),
      );
    const layout = `TP ${r.tp} PP ${r.pp} CP ${r.cp} DP ${r.dp}${config.experts > 0 ? ` EP ${r.ep}` : ''} ZeRO ${r.zero} ${r.ckpt} mb ${r.mb}${r.verdict === 'tight' ? ' (tight)' : ''}`;
    const timed = r.stepTimeSeconds > 0;
    const row = el(
      'tr',
      { 'data-gpu': g.gpu, class: g === fastest ? 'recommended' : '', tabindex: 0, title: g.reason },
      ...cells([
        g.label,
        formatBytes(g.capacityBytes, unit),
        formatCount(g.fitting),
        layout,
        formatBytes(r.peakBytes, unit),
        timed ? formatCount(Math.round(r.tokensPerSecondPerGpu)) : '–',
        timed ? formatPercentTenth(r.mfu) : '–',
        ...(run ? [timed ? formatDays(r.runDays) : '–', timed ? formatCount(Math.round(r.runGpuHours)) : '–'] : []),
      ]),
    );
    const load = () =>
      void loadPlannerEngine().then((planner) =>
        onLoad(planner.planRowConfig(planner.setField(planner.setField(request.base, 'gpu', g.gpu), 'gpu_hour_usd', '0'), r)),
      );
    row.addEventListener('click', load);
    row.addEventListener('keydown', (event) => {
      if ((event as KeyboardEvent).key === 'Enter') load();
    });
    return row;
  });
  replaceChildren(
    table,
    el('table', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))), el('tbody', {}, ...body)),
  );
}
