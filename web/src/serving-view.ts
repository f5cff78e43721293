// "What fits" in inference (the CLI's `plan --mode inference`, docs/inference.md "Serving plan"): every layout of
// TP × PP (× EP) replicas on N GPUs and every concurrency that fits, ranked by output tokens/s per GPU under the
// TTFT and TPOT targets, and the same workload on every GPU preset. planner-view.ts loads this file when the
// configuration is in inference, so that the page's own script stays as it was; the plan runs in the planner's
// worker (on the single-file page, in place). A row loads the configuration its link query states.
import type { Config, Engine, GpuServingPlan, Problem, ServingPlan, ServingPlanRequest, ServingPlanRow } from './engine';
import { loadPlannerEngine, MembudgetError } from './engine';
import { el, replaceChildren } from './dom';
import { formatBytes, formatCount, groupedDecimal, UNIT_LABEL, type Unit } from './format';
import type { PlanMessage, PlanReply } from './plan-run';
import { startWorker } from './tools';

declare const __MEMBUDGET_WORKER__: boolean;

/** Rows drawn at once (a plan of many GPUs has thousands). */
const SHOWN_ROWS = 200;

/** The engine's default for the requests one replica runs at once (ServingPlanRequest::maxConcurrency; the CLI's --max-concurrency). */
const MAX_CONCURRENCY = 1024;

/** What each column means, as a tooltip on its header. */
const COLUMN_HELP: Record<string, string> = {
  'layout × replicas': 'TP (tensor parallel) and PP (pipeline stages) of one replica, EP (expert parallel) for a MoE model, × the replicas',
  requests: 'requests each replica runs at once (the concurrency timed)',
  'max fit': 'the most requests of seq tokens whose KV cache fits per replica (at most the max concurrency)',
  peak: 'peak memory per GPU at this concurrency',
  'TTFT ms': 'estimated time to first token',
  'TPOT ms': 'estimated time per output token',
  'out tok/s/GPU': 'estimated output tokens per second per GPU: not a measurement',
  'out tok/s': 'estimated output tokens per second of the whole deployment (all replicas)',
  targets: 'whether the row meets the TTFT and TPOT targets',
};

const ms = (seconds: number) => groupedDecimal(Math.round(seconds * 1e4) / 10, 0, 1);

/** The layout as the CLI writes it: TP 2 PP 4 × 1. */
const layoutText = (r: ServingPlanRow) =>
  `TP ${r.tp}${r.pp > 1 ? ` PP ${r.pp}` : ''}${r.ep > 1 ? ` EP ${r.ep}` : ''}${r.attentionDp > 1 ? ` DPA ${r.attentionDp}` : ''} × ${r.dp}`;

/** What a plan's request leaves out of the configuration: the fields a row sets (servingRowConfig). */
const workload = (config: Config) => JSON.stringify({ ...config, tp: 1, pp: 1, dp: 1, ep: 1, cp: 1, etp: 0, gpus: 0, mb: 1 });

export class ServingView {
  readonly element: HTMLElement;
  readonly #engine: Engine;
  readonly #onLoad: (config: Config) => void;
  readonly #gpus = el('input', { id: 'serving-gpus', type: 'number', min: 1, step: 1, inputmode: 'numeric' });
  readonly #ttft = el('input', { id: 'serving-ttft', type: 'number', min: 0, step: 'any', inputmode: 'decimal', placeholder: 'none' });
  readonly #tpot = el('input', { id: 'serving-tpot', type: 'number', min: 0, step: 'any', inputmode: 'decimal', placeholder: 'none' });
  readonly #concurrency = el('input', { id: 'serving-concurrency', type: 'number', min: 1, step: 1, inputmode: 'numeric' });
  readonly #run = el('button', { id: 'serving-run', type: 'button' }, 'Search');
  readonly #whichGpu = el('button', { id: 'serving-which-gpu', type: 'button' }, 'Which GPU?');
  readonly #status = el('p', { id: 'serving-status', class: 'plan-status', role: 'status', 'aria-live': 'polite' });
  readonly #stale = el('p', { id: 'serving-stale', class: 'note', hidden: true });
  readonly #gpuTable = el('div', { id: 'serving-gpus-table', class: 'plan-table' });
  readonly #table = el('div', { id: 'serving-table', class: 'plan-table' });
  #config: Config | undefined;
  #unit: Unit = 'gb';
  /** The shown result and the request it answers: a plan, or every GPU's; `covers`: the workloads it is about (the
   * request's, and each GPU's for every GPU's). */
  #shown: { request: ServingPlanRequest; plan?: ServingPlan; gpus?: GpuServingPlan[]; covers: Set<string> } | undefined;
  #worker: Worker | undefined;
  #runId = 0;
  #gpusEdited = false;

  constructor(engine: Engine, onLoad: (config: Config) => void) {
    this.#engine = engine;
    this.#onLoad = onLoad;
    this.#concurrency.value = String(MAX_CONCURRENCY);
    const label = (text: string, control: HTMLElement) => el('label', { class: 'plan-field' }, el('span', {}, text), control);
    this.element = el(
      'div',
      { id: 'serving-planner' },
      el(
        'p',
        { class: 'note' },
        'Serving: every TP (within a node unless the configuration says otherwise; attention heads divisible by TP) × PP, replicas over the rest of the GPUs and, for a MoE model, expert parallelism; for each, 1, 2, 4, … requests per replica up to the most whose KV cache fits. Rows that meet the TTFT and TPOT targets come first, the most output tokens/s per GPU first. TTFT, TPOT and tokens/s are estimates (docs/inference.md), not measurements; click a row to load it.',
      ),
      el(
        'div',
        { class: 'plan-inputs' },
        label('GPUs (total)', this.#gpus),
        label('TTFT target (ms)', this.#ttft),
        label('TPOT target (ms)', this.#tpot),
        label('Max concurrency per replica', this.#concurrency),
      ),
      el('div', { class: 'plan-actions' }, this.#run, this.#whichGpu),
      this.#status,
      this.#stale,
      this.#gpuTable,
      this.#table,
    );
    this.#run.addEventListener('click', () => this.#start(false));
    this.#whichGpu.addEventListener('click', () => this.#start(true));
    for (const control of [this.#gpus, this.#ttft, this.#tpot, this.#concurrency])
      control.addEventListener('keydown', (event) => {
        if ((event as KeyboardEvent).key === 'Enter') {
          event.preventDefault();
          this.#start(false);
        }
      });
    this.#gpus.addEventListener('input', () => (this.#gpusEdited = true));
  }

  focus(): void {
    this.#gpus.focus();
  }

  /** The configuration the plan starts from; the GPU count defaults to its own. */
  show(config: Config, unit: Unit): void {
    const gpus = config.gpus || this.#engine.worldSize(config);
    const changedScale = !this.#config || (this.#config.gpus || this.#engine.worldSize(this.#config)) !== gpus;
    const changedUnit = unit !== this.#unit;
    this.#config = config;
    this.#unit = unit;
    if ((changedScale && !this.#gpusEdited) || this.#gpus.value === '') this.#gpus.value = String(gpus);
    // A result for another workload (model, GPU, lengths, engine) stays, but says so: a loaded row changes only the
    // layout and the concurrency, which the result is about.
    const shown = this.#shown;
    const stale = shown !== undefined && !shown.covers.has(workload(config));
    this.#stale.hidden = !stale;
    this.element.toggleAttribute('data-stale', stale);
    replaceChildren(this.#stale, stale ? 'The configuration above has changed since this search: search again for its plan.' : '');
    if (changedUnit && shown) this.#render();
  }

  /** Stops a search and drops what it showed (the configuration left inference). */
  clear(): void {
    this.#stop();
    this.#shown = undefined;
    this.#stale.hidden = true;
    this.element.removeAttribute('data-stale');
    replaceChildren(this.#status);
    replaceChildren(this.#table);
    replaceChildren(this.#gpuTable);
  }

  /** The request the fields state, or the problems of a field the engine cannot be given. */
  #request(config: Config): ServingPlanRequest | Problem[] {
    const problems: Problem[] = [];
    const number = (input: HTMLInputElement, field: string) => {
      // A number input holds '' for text that is not a number: said, not read as "no target".
      if (input.validity.badInput) problems.push({ field, message: `${field} must be a number; got text that is not one` });
      return Number(input.value);
    };
    // The targets in ms, as the CLI's --ttft-ms and --tpot-ms take them (0 to 10,000,000; empty or 0: none).
    const target = (input: HTMLInputElement, field: string) => {
      const value = number(input, field);
      if (!(value >= 0 && value <= 1e7))
        problems.push({ field, message: `${field} must be from 0 (no target) to 10,000,000 ms; got ${input.value}` });
      return value / 1e3;
    };
    const request: ServingPlanRequest = {
      base: config,
      gpus: number(this.#gpus, 'gpus'),
      ttftLimitSeconds: target(this.#ttft, 'ttft_ms'),
      tpotLimitSeconds: target(this.#tpot, 'tpot_ms'),
      maxConcurrency: number(this.#concurrency, 'max_concurrency'),
      tpAcrossNodes: false,
    };
    // The configuration itself must be one the engine takes, as the CLI plans only a configuration it can evaluate.
    problems.push(...this.#engine.validate(config));
    return problems.length > 0 ? problems : request;
  }

  /** A search (or every GPU's, whichGpu): one call, in the planner's worker where there is one. */
  #start(whichGpu: boolean): void {
    if (!this.#config) return;
    this.#stop();
    const request = this.#request(this.#config);
    const id = ++this.#runId;
    const started = performance.now();
    const fail = (problems: Problem[]) => {
      if (id !== this.#runId) return;
      this.#running(false);
      this.#shown = undefined;
      replaceChildren(this.#table);
      replaceChildren(this.#gpuTable);
      this.#stale.hidden = true;
      this.#markInvalid(problems);
      replaceChildren(this.#status, el('span', { class: 'error' }, problems.map((p) => p.message).join('; ')));
      this.element.dataset.state = 'error';
    };
    if (Array.isArray(request)) {
      fail(request);
      return;
    }
    this.#markInvalid([]);
    this.#running(true);
    this.element.dataset.state = 'running';
    replaceChildren(this.#status, whichGpu ? 'Planning on every GPU…' : 'Searching…');
    const finish = (result: { plan?: ServingPlan; gpus?: GpuServingPlan[] }) => {
      if (id !== this.#runId) return;
      this.#running(false);
      // A row's link states its workload as the plan's base does (the base's own tp, dp, … aside).
      const queries = [...(result.plan?.rows.slice(0, 1) ?? []), ...(result.gpus ?? []).map((g) => g.recommended)].map((r) => r?.query);
      const covers = new Set(
        [request.base, ...queries.filter((q) => q !== undefined).map((q) => this.#engine.decodeQuery(q).config)].map(workload),
      );
      this.#shown = { request, ...result, covers };
      this.#stale.hidden = true;
      this.element.dataset.state = 'done';
      document.body.dataset.servingPlanMs = (performance.now() - started).toFixed(1);
      this.#render(performance.now() - started);
    };
    const failWith = (error: unknown) => fail(error instanceof MembudgetError ? error.problems : [{ field: '', message: String(error) }]);
    if (__MEMBUDGET_WORKER__) {
      const message: PlanMessage = whichGpu ? { id, kind: 'serving-which-gpu', request } : { id, kind: 'serving-plan', request };
      const worker = startWorker();
      this.#worker = worker;
      worker.onmessage = (event: MessageEvent<PlanReply>) => {
        const reply = event.data;
        this.#stop(false);
        if (reply.kind === 'serving-plan') finish({ plan: reply.plan });
        else if (reply.kind === 'serving-gpus') finish({ gpus: reply.gpus });
        else fail(reply.kind === 'error' ? reply.problems : [{ field: '', message: `unexpected reply ${reply.kind}` }]);
      };
      worker.onerror = (event) => {
        this.#stop(false);
        fail([{ field: '', message: `the planner worker failed: ${event.message || 'no message'}` }]);
      };
      worker.postMessage(message);
    } else {
      // The single-file page has no worker file: the planner's module on the main thread (one call, well under a second).
      loadPlannerEngine()
        .then((planner) => finish(whichGpu ? { gpus: planner.planServingEachGpu(request) } : { plan: planner.planServing(request) }))
        .catch(failWith);
    }
  }

  /** Ends the worker; a new search also drops the one before (bumping the run, unless the worker is done). */
  #stop(supersede = true): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    if (supersede) {
      ++this.#runId;
      this.#running(false);
    }
  }

  #running(on: boolean): void {
    const hadFocus = document.activeElement === this.#run || document.activeElement === this.#whichGpu;
    this.#run.disabled = on;
    this.#whichGpu.disabled = on;
    this.element.classList.toggle('running', on);
    this.element.setAttribute('aria-busy', String(on));
    // Disabling the focused button drops the focus to the page: it comes back to the button when the search ends.
    if (on) this.#refocus = hadFocus ? (document.activeElement as HTMLButtonElement) : undefined;
    else if (this.#refocus && (document.activeElement === document.body || document.activeElement === null)) this.#refocus.focus();
    if (!on) this.#refocus = undefined;
  }
  #refocus: HTMLButtonElement | undefined;

  /** The fields a problem names, marked invalid for assistive technology; the others cleared. */
  #markInvalid(problems: Problem[]): void {
    const fields: [HTMLInputElement, string][] = [
      [this.#gpus, 'gpus'],
      [this.#ttft, 'ttft_ms'],
      [this.#tpot, 'tpot_ms'],
      [this.#concurrency, 'max_concurrency'],
    ];
    for (const [input, field] of fields) {
      const bad = problems.some((p) => p.field === field);
      input.toggleAttribute('aria-invalid', bad);
      if (bad) input.setAttribute('aria-describedby', 'serving-status');
      else input.removeAttribute('aria-describedby');
    }
  }

  #render(elapsedMs?: number): void {
    const shown = this.#shown;
    if (!shown) return;
    const { request } = shown;
    const base = request.base;
    const targets =
      [
        request.ttftLimitSeconds > 0 ? `TTFT ≤ ${ms(request.ttftLimitSeconds)} ms` : '',
        request.tpotLimitSeconds > 0 ? `TPOT ≤ ${ms(request.tpotLimitSeconds)} ms` : '',
      ]
        .filter(Boolean)
        .join(', ') || 'no latency target';
    const workloadText = `${base.model} on ${formatCount(request.gpus)} GPUs (${base.framework}), requests of ${formatCount(base.input_tokens)} in / ${formatCount(base.output_tokens)} out (seq ${formatCount(base.seq)}), ${targets}`;
    const took = elapsedMs === undefined ? '' : ` (${formatCount(elapsedMs)} ms)`;
    if (shown.gpus) {
      replaceChildren(this.#table);
      this.#renderGpus(shown.gpus, request.gpus, workloadText, took);
      return;
    }
    replaceChildren(this.#gpuTable);
    const plan = shown.plan!;
    const met = plan.rows.filter((r) => r.meetsTargets).length;
    replaceChildren(
      this.#status,
      `${workloadText}: ${formatCount(plan.layouts)} layouts, ${formatCount(plan.evaluated)} evaluated; ${formatCount(plan.rows.length)} rows fit, ${formatCount(met)} meet the targets${took}.`,
    );
    if (plan.recommended < 0) {
      replaceChildren(
        this.#table,
        el(
          'p',
          { id: 'serving-recommended', class: 'plan-recommended' },
          el('strong', {}, 'Nothing fits: '),
          plan.reason,
          '. Try more GPUs, a larger GPU, a shorter sequence or a lower-precision KV cache.',
        ),
      );
      return;
    }
    const unit = UNIT_LABEL[this.#unit];
    const head = [
      'layout × replicas',
      'requests',
      'max fit',
      `peak ${unit}`,
      'TTFT ms',
      'TPOT ms',
      'out tok/s/GPU',
      'out tok/s',
      'targets',
    ];
    const rows = plan.rows
      .slice(0, SHOWN_ROWS)
      .map((r, i) =>
        this.#row(
          r,
          i === plan.recommended,
          [
            layoutText(r),
            formatCount(r.concurrency),
            formatCount(r.maxConcurrency),
            formatBytes(r.peakBytes, this.#unit),
            ms(r.ttftSeconds),
            ms(r.tpotSeconds),
            formatCount(Math.round(r.outputTokensPerSecondPerGpu)),
            formatCount(Math.round(r.outputTokensPerSecond)),
            r.meetsTargets ? 'met' : 'missed',
          ],
          `${layoutText(r)} with ${r.concurrency} requests per replica`,
        ),
      );
    replaceChildren(
      this.#table,
      el(
        'p',
        { id: 'serving-recommended', class: 'plan-recommended' },
        el('strong', {}, 'Recommended (estimated): '),
        plan.reason,
        '. The first row; click it to load it.',
      ),
      this.#tableOf(
        `Serving layouts on ${formatCount(request.gpus)} GPUs, ${targets}: the rows that meet the targets first, the most output tokens/s per GPU first. TTFT, TPOT and tokens/s are estimates.`,
        head,
        rows,
      ),
      plan.rows.length > SHOWN_ROWS
        ? el(
            'p',
            { class: 'note' },
            `${formatCount(SHOWN_ROWS)} of ${formatCount(plan.rows.length)} rows shown (the CLI's plan --json lists them all).`,
          )
        : null,
    );
  }

  /** One row per GPU preset with its recommended layout; a row loads it on that GPU. */
  #renderGpus(gpus: GpuServingPlan[], count: number, workloadText: string, took: string): void {
    if (gpus.length === 0) {
      replaceChildren(this.#gpuTable);
      replaceChildren(this.#status, el('span', { class: 'error' }, 'no GPU presets'));
      return;
    }
    const fastest = gpus.reduce<GpuServingPlan | undefined>(
      (best, g) =>
        g.recommended?.meetsTargets && (!best || g.recommended.outputTokensPerSecondPerGpu > best.recommended!.outputTokensPerSecondPerGpu)
          ? g
          : best,
      undefined,
    );
    replaceChildren(
      this.#status,
      `${workloadText}, on each of ${formatCount(gpus.length)} GPU presets: its recommended layout${fastest ? `; the most output tokens/s per GPU meeting the targets: ${fastest.label}` : ''} (estimated)${took}. Click a row to load it.`,
    );
    const head = ['GPU', 'layout × replicas', 'requests', 'TTFT ms', 'TPOT ms', 'out tok/s/GPU', 'out tok/s', 'targets'];
    const rows = gpus.map((g) => {
      const r = g.recommended;
      if (!r)
        return el(
          'tr',
          { 'data-gpu': g.gpu },
          el('td', {}),
          el('th', { scope: 'row' }, g.label),
          el('td', { colspan: head.length - 1 }, g.errors.map((p) => p.message).join('; ') || `nothing fits: ${g.reason}`),
        );
      return this.#row(
        r,
        g === fastest,
        [
          layoutText(r),
          formatCount(r.concurrency),
          ms(r.ttftSeconds),
          ms(r.tpotSeconds),
          formatCount(Math.round(r.outputTokensPerSecondPerGpu)),
          formatCount(Math.round(r.outputTokensPerSecond)),
          r.meetsTargets ? 'met' : 'missed',
        ],
        `${layoutText(r)} with ${r.concurrency} requests per replica on ${g.label}`,
        g,
      );
    });
    replaceChildren(
      this.#gpuTable,
      this.#tableOf(
        `Each GPU preset's recommended serving layout for the same workload on ${formatCount(count)} GPUs of it. TTFT, TPOT and tokens/s are estimates.`,
        head,
        rows,
      ),
    );
  }

  #tableOf(caption: string, head: string[], rows: HTMLTableRowElement[]): HTMLTableElement {
    return el(
      'table',
      { class: 'plan-rows' },
      el('caption', {}, caption),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col', title: 'load the row into the checklist' }, el('span', { class: 'visually-hidden' }, 'Load')),
          ...head.map((h) => el('th', { scope: 'col', title: COLUMN_HELP[h] ?? COLUMN_HELP[h.split(' ')[0]!] ?? '' }, h)),
        ),
      ),
      el('tbody', {}, ...rows),
    );
  }

  /** A row that loads its configuration: a click anywhere on it, or its Load button from the keyboard. */
  #row(r: ServingPlanRow, recommended: boolean, cells: string[], name: string, gpu?: GpuServingPlan): HTMLTableRowElement {
    const load = () => this.#onLoad(this.#engine.decodeQuery(r.query).config);
    const button = el('button', { type: 'button', class: 'plan-load', 'aria-label': `Load ${name}`, title: `Load ${name}` }, 'Load');
    button.addEventListener('click', (event) => {
      event.stopPropagation();
      load();
    });
    const tr = el(
      'tr',
      {
        class: [recommended ? 'recommended' : '', r.meetsTargets ? '' : 'missed'].filter(Boolean).join(' '),
        'data-query': r.query,
        'data-peak-bytes': String(r.peakBytes),
        'data-meets': String(r.meetsTargets),
        ...(gpu ? { 'data-gpu': gpu.gpu } : {}),
        title: gpu ? gpu.reason : 'Load this configuration into the checklist',
      },
      el('td', {}, button),
      ...(gpu ? [el('th', { scope: 'row' }, gpu.label)] : []),
      // The layout names a plan's row (the GPU, every GPU's); the numbers between it and "met" align right.
      ...cells.map((c, i) =>
        i === 0 && !gpu ? el('th', { scope: 'row' }, c) : el('td', { class: i > 0 && i < cells.length - 1 ? 'value' : '' }, c),
      ),
    );
    tr.addEventListener('click', load);
    return tr;
  }
}
