// "What fits": every layout of the model on N GPUs (the CLI's `membudget plan`), searched in a Web Worker
// with a progress bar and a Cancel button, the Pareto front first, sortable and filterable; a row loads
// into the checklist; "Which GPU?" runs it on every GPU preset (gpu-plans-view.ts draws that table). In inference
// the section is the serving planner instead (serving-view.ts, loaded then).
import type { Config, Engine, GpuPlan, Plan, PlanRequest, PlanRow, Problem } from './engine';
import { loadPlannerEngine, MembudgetError } from './engine';
import { el, replaceChildren } from './dom';
import { formatBytes, formatCount, formatDays, formatPercentTenth, UNIT_LABEL, type Unit } from './format';
import { runPlan, type PlanMessage, type PlanProgress, type PlanReply } from './plan-run';
import { renderGpuPlans } from './gpu-plans-view';
import type { ServingView } from './serving-view';
import { startWorker } from './tools';

declare const __MEMBUDGET_WORKER__: boolean;

/** Rows drawn at once; the rest are a sort or a filter away. */
const SHOWN_ROWS = 200;

type SortKey = 'peak' | 'speed' | 'mfu' | 'headroom' | 'bubble' | 'recompute' | 'tp';

const SORTS: Record<SortKey, (a: PlanRow, b: PlanRow) => number> = {
  peak: (a, b) => a.peakBytes - b.peakBytes,
  speed: (a, b) => b.tokensPerSecondPerGpu - a.tokensPerSecondPerGpu || a.peakBytes - b.peakBytes,
  mfu: (a, b) => b.mfu - a.mfu || a.peakBytes - b.peakBytes,
  headroom: (a, b) => b.headroomBytes - a.headroomBytes,
  bubble: (a, b) => a.bubble - b.bubble || a.peakBytes - b.peakBytes,
  recompute: (a, b) => a.recomputeOverhead - b.recomputeOverhead || a.peakBytes - b.peakBytes,
  tp: (a, b) => a.tp * a.cp - b.tp * b.cp || a.peakBytes - b.peakBytes,
};

/** What each column means, as a tooltip on its header. */
const COLUMN_HELP: Record<string, string> = {
  TP: 'tensor parallel size',
  PP: 'pipeline parallel size (stages)',
  CP: 'context parallel size',
  DP: 'data parallel size',
  EP: 'expert parallel size',
  ZeRO: 'ZeRO stage: 0 none, 1 optimizer states, 2 and gradients, 3 and parameters sharded over DP',
  SP: 'sequence parallelism',
  ckpt: 'activation checkpointing (op: torchtitan’s op-level selective checkpointing)',
  mb: 'micro-batch size: sequences per forward on each GPU',
  m: 'micro-batches per step (gradient accumulation; in flight in the pipeline)',
  peak: 'peak memory per GPU on the peak stage',
  headroom: 'memory left under the headroom line',
  recompute: 'extra compute for recomputation (share of a step)',
  bubble: 'pipeline bubble: (PP − 1) / (m + PP − 1) of the step idle',
  'tokens/s/GPU': 'estimated training throughput per GPU (the step-time estimate, docs/planner.md): not a measurement',
  MFU: 'estimated model FLOPs utilisation: (6·N + 12·L·a·d·s) FLOPs per token × tokens/s ÷ the dense BF16 peak',
  'vs best': 'estimated step time against the recommended row’s',
  notes: 'recommended: the fastest that fits; Pareto: no other row is better on every measure',
};

export class PlannerView {
  readonly element: HTMLDetailsElement;
  readonly #engine: Engine;
  readonly #onLoad: (config: Config) => void;
  readonly #gpus = el('input', { id: 'plan-gpus', type: 'number', min: 1, step: 1, inputmode: 'numeric' });
  readonly #batch = el('input', { id: 'plan-batch', type: 'number', min: 1, step: 1, inputmode: 'numeric' });
  readonly #maxMb = el('select', { id: 'plan-max-mb' }, ...[1, 2, 4, 8, 16, 32].map((v) => el('option', { value: v }, String(v))));
  readonly #acrossNodes = el('input', { id: 'plan-tp-across', type: 'checkbox' });
  readonly #tight = el('input', { id: 'plan-tight', type: 'checkbox' });
  readonly #run = el('button', { id: 'plan-run', type: 'button' }, 'Search');
  readonly #whichGpu = el('button', { id: 'plan-which-gpu', type: 'button' }, 'Which GPU?');
  readonly #cancel = el('button', { id: 'plan-cancel', type: 'button', disabled: true }, 'Cancel');
  readonly #gpuTable = el('div', { id: 'plan-gpu-table', class: 'plan-table' });
  readonly #progress = el('progress', { id: 'plan-progress', max: 1, value: 0 });
  readonly #status = el('p', { id: 'plan-status', class: 'plan-status', role: 'status', 'aria-live': 'polite' });
  readonly #sort = el(
    'select',
    { id: 'plan-sort', 'aria-label': 'Sort by' },
    el('option', { value: 'peak' }, 'peak memory'),
    el('option', { value: 'speed' }, 'tokens/s per GPU'),
    el('option', { value: 'mfu' }, 'MFU'),
    el('option', { value: 'headroom' }, 'headroom'),
    el('option', { value: 'bubble' }, 'pipeline bubble'),
    el('option', { value: 'recompute' }, 'recomputation'),
    el('option', { value: 'tp' }, 'TP × CP'),
  );
  readonly #paretoOnly = el('input', { id: 'plan-pareto', type: 'checkbox', checked: true });
  readonly #ckptFilter = el(
    'select',
    { id: 'plan-ckpt', 'aria-label': 'Checkpointing' },
    el('option', { value: '' }, 'any checkpointing'),
    ...['none', 'selective', 'full', 'op'].map((m) => el('option', { value: m }, m)),
  );
  readonly #sameNode = el('input', { id: 'plan-same-node', type: 'checkbox' });
  readonly #table = el('div', { id: 'plan-table', class: 'plan-table' });
  readonly #training: HTMLDivElement;
  readonly #servingBox = el('div', { id: 'plan-serving', hidden: true });
  #serving: Promise<ServingView | undefined> | undefined;
  #inference = false;
  #config: Config | undefined;
  /** The GPU count of the configuration last shown (undefined before the first). */
  #shownGpus: number | undefined;
  #unit: Unit = 'gb';
  #plan: Plan | undefined;
  #request: PlanRequest | undefined;
  #worker: Worker | undefined;
  #runId = 0;
  #mainThreadCancelled = false;
  #gpusEdited = false;

  constructor(engine: Engine, onLoad: (config: Config) => void) {
    this.#engine = engine;
    this.#onLoad = onLoad;
    this.#maxMb.value = '16';
    const label = (text: string, control: HTMLElement) => el('label', { class: 'plan-field' }, el('span', {}, text), control);
    const check = (control: HTMLInputElement, text: string) => el('label', { class: 'plan-check' }, control, ` ${text}`);
    this.#training = el(
      'div',
      { id: 'plan-training' },
      el(
        'p',
        { class: 'note' },
        'Every TP (within a node unless allowed), PP (uneven when it does not divide the layers), CP, DP',
        ' and EP for MoE models, every ZeRO stage, sequence parallelism, checkpointing mode and micro-batch that fits, for the model, GPU and sequence length above. The recommended row, the fastest that fits by the step-time estimate (tokens/s per GPU and MFU columns; an estimate, not a measurement), comes first, then the Pareto front (least recomputation, bubble, TP × CP, ZeRO-3 and cross-node traffic, and memory); click a row to load it.',
      ),
      el(
        'div',
        { class: 'plan-inputs' },
        label('GPUs', this.#gpus),
        label('Global batch (sequences)', this.#batch),
        label('Largest micro-batch', this.#maxMb),
        check(this.#acrossNodes, 'TP across nodes'),
        check(this.#tight, 'include tight'),
      ),
      el('div', { class: 'plan-actions' }, this.#run, this.#whichGpu, this.#cancel, this.#progress),
      this.#status,
      this.#gpuTable,
      el(
        'div',
        { class: 'plan-filters' },
        label('Sort by', this.#sort),
        check(this.#paretoOnly, 'Pareto front only'),
        this.#ckptFilter,
        check(this.#sameNode, 'no cross-node TP/CP'),
      ),
      this.#table,
    );
    this.element = el(
      'details',
      { id: 'planner', class: 'planner' },
      el('summary', {}, 'What fits on my GPUs? Search every layout'),
      this.#training,
      this.#servingBox,
    );
    this.#run.addEventListener('click', () => this.#start());
    this.#whichGpu.addEventListener('click', () => this.#startWhichGpu());
    // Enter in any of its fields starts the search; a GPU count typed here is the search's own.
    for (const control of [this.#gpus, this.#batch, this.#maxMb])
      control.addEventListener('keydown', (event) => {
        if ((event as KeyboardEvent).key === 'Enter') {
          event.preventDefault();
          this.#start();
        }
      });
    this.#gpus.addEventListener('input', () => (this.#gpusEdited = true));
    this.#cancel.addEventListener('click', () => this.#stop('Cancelled.'));
    for (const control of [this.#sort, this.#paretoOnly, this.#ckptFilter, this.#sameNode])
      control.addEventListener('change', () => this.#render());
  }

  /** Opens the search with its GPU count focused (the page's "What fits on my GPUs?"). */
  open(): void {
    this.element.open = true;
    this.element.scrollIntoView({ block: 'start' });
    if (this.#inference) void this.#servingView().then((view) => view?.focus());
    else this.#gpus.focus();
  }

  /** The serving planner, loaded the first time the configuration is in inference. */
  #servingView(): Promise<ServingView | undefined> {
    this.#serving ??= import('./serving-view')
      .then(({ ServingView }) => {
        const view = new ServingView(this.#engine, this.#onLoad);
        replaceChildren(this.#servingBox, view.element);
        return view;
      })
      .catch((error: unknown) => {
        // Offline or blocked: said in the section, and tried again on the next change.
        this.#serving = undefined;
        replaceChildren(this.#servingBox, el('p', { class: 'error' }, `The serving planner could not be loaded: ${String(error)}`));
        return undefined;
      });
    return this.#serving;
  }

  /** The configuration the search starts from; GPUs and global batch default to its own. */
  show(config: Config, unit: Unit): void {
    // Training layouts or serving layouts: a change of mode drops what the other planner showed, never left in view.
    const inference = config.mode === 'inference';
    if (inference !== this.#inference) {
      this.#inference = inference;
      this.#stop();
      this.#plan = undefined;
      for (const node of [this.#status, this.#table, this.#gpuTable]) replaceChildren(node);
      this.#training.hidden = inference;
      this.#servingBox.hidden = !inference;
      if (!inference) void this.#serving?.then((view) => view?.clear());
    }
    if (inference) {
      void this.#servingView().then((view) => view?.show(config, unit));
      return;
    }
    // The GPU count the user stated (DP follows it in the engine), else the layout's.
    const gpus = config.gpus || this.#engine.worldSize(config);
    // Against the GPU count of the configuration shown before, kept: asking the engine about that configuration
    // again would cross into the wasm on every field change.
    const changedScale = this.#shownGpus !== gpus;
    this.#shownGpus = gpus;
    this.#config = config;
    this.#unit = unit;
    if ((changedScale && !this.#gpusEdited) || this.#gpus.value === '') {
      this.#gpus.value = String(gpus);
      this.#batch.value = String(config.dp * config.mb * config.microbatches);
    }
    if (this.#plan) this.#render();
  }

  /** The search the inputs state, over the configuration above. */
  #buildRequest(config: Config): PlanRequest {
    const request = this.#engine.planRequest(config, Number(this.#gpus.value), Number(this.#batch.value));
    request.maxMicroBatch = Number(this.#maxMb.value);
    request.tpAcrossNodes = this.#acrossNodes.checked;
    request.includeTight = this.#tight.checked;
    return request;
  }

  /** The same search on every GPU preset (the CLI's `plan --which-gpu`): one call, in the worker where there is one. */
  #startWhichGpu(): void {
    if (!this.#config) return;
    this.#stop();
    const config = this.#config;
    const request = this.#buildRequest(config);
    const id = ++this.#runId;
    this.#running(true);
    replaceChildren(this.#status, 'Planning on every GPU…');
    const finish = (gpus: GpuPlan[]) => {
      if (id !== this.#runId) return;
      this.#running(false);
      renderGpuPlans(config, request, gpus, this.#unit, this.#onLoad, this.#status, this.#gpuTable);
    };
    const fail = (problems: Problem[]) => {
      if (id !== this.#runId) return;
      this.#running(false);
      replaceChildren(this.#gpuTable);
      replaceChildren(this.#status, el('span', { class: 'error' }, problems.map((p) => p.message).join('; ')));
    };
    if (__MEMBUDGET_WORKER__) {
      this.#post({ id, kind: 'which-gpu', request }, fail, (reply) => {
        if (reply.kind === 'gpus') finish(reply.gpus);
        else fail(reply.kind === 'error' ? reply.problems : [{ field: '', message: `unexpected reply ${reply.kind}` }]);
        this.#endWorker();
      });
    } else {
      loadPlannerEngine()
        .then((planner) => finish(planner.planEachGpu(request)))
        .catch((error: unknown) => fail(error instanceof MembudgetError ? error.problems : [{ field: '', message: String(error) }]));
    }
  }

  #start(): void {
    if (!this.#config) return;
    this.#stop();
    const request = this.#buildRequest(this.#config);
    this.#request = request;
    const id = ++this.#runId;
    const started = performance.now();
    this.#running(true);
    this.#progress.value = 0;
    replaceChildren(this.#status, 'Searching…');
    const finish = (plan: Plan) => {
      if (id !== this.#runId) return;
      this.#running(false);
      this.#plan = plan;
      this.#progress.value = 1;
      void loadPlannerEngine(); // a row loads its configuration through the planner's module: have it ready
      const front = plan.rows.filter((r) => r.pareto).length;
      replaceChildren(
        this.#status,
        `${formatCount(plan.layouts)} layouts, ${formatCount(plan.candidates)} configurations: ${formatCount(plan.evaluated)} evaluated, ${formatCount(plan.pruned)} pruned; ${formatCount(plan.fitting)} fit, ${formatCount(front)} on the Pareto front (${formatCount(performance.now() - started)} ms).${plan.dropped > 0 ? ` The ${formatCount(plan.rows.length)} best are listed; ${formatCount(plan.dropped)} more fit but are dropped (Pareto front first, then by peak memory).` : ''}`,
      );
      document.body.dataset.planMs = (performance.now() - started).toFixed(1);
      this.#render();
    };
    const fail = (problems: Problem[]) => {
      if (id !== this.#runId) return;
      this.#running(false);
      this.#plan = undefined;
      replaceChildren(this.#table);
      replaceChildren(this.#status, el('span', { class: 'error' }, problems.map((p) => p.message).join('; ')));
    };
    const progress = (p: PlanProgress) => {
      if (id !== this.#runId) return;
      this.#progress.value = p.layouts ? p.layoutsDone / p.layouts : 1;
      replaceChildren(
        this.#status,
        `Searching: ${formatCount(p.layoutsDone)} of ${formatCount(p.layouts)} layouts, ${formatCount(p.evaluated)} evaluated, ${formatCount(p.fitting)} fit so far…`,
      );
    };
    if (__MEMBUDGET_WORKER__) {
      this.#post({ id, kind: 'plan', request }, fail, (reply) => {
        if (reply.kind === 'progress') progress(reply.progress);
        else if (reply.kind === 'done') {
          finish(reply.plan);
          this.#endWorker();
        } else {
          fail(reply.kind === 'error' ? reply.problems : [{ field: '', message: `unexpected reply ${reply.kind}` }]);
          this.#endWorker();
        }
      });
    } else {
      // The single-file page: the same slices on the main thread, yielding to the browser between them.
      this.#mainThreadCancelled = false;
      loadPlannerEngine()
        .then((planner) =>
          runPlan(
            planner,
            request,
            progress,
            () => new Promise((resolve) => setTimeout(resolve, 0)),
            () => this.#mainThreadCancelled || id !== this.#runId,
          ),
        )
        .then(finish)
        .catch((error: unknown) => {
          if (error instanceof MembudgetError) fail(error.problems);
          else if (!(error instanceof Error && error.message === 'cancelled')) fail([{ field: '', message: String(error) }]);
        });
    }
  }

  #stop(message?: string): void {
    this.#endWorker();
    this.#mainThreadCancelled = true;
    ++this.#runId;
    this.#running(false);
    if (message) replaceChildren(this.#status, message);
  }

  /** A worker for one message: its replies to onReply (which ends it when it is done), a failure of its own to fail. */
  #post(message: PlanMessage, fail: (problems: Problem[]) => void, onReply: (reply: PlanReply) => void): void {
    // The single-file page has no worker file: the constant lets the bundler drop the worker and what it loads.
    if (!__MEMBUDGET_WORKER__) return;
    const worker = startWorker();
    this.#worker = worker;
    worker.onmessage = (event: MessageEvent<PlanReply>) => onReply(event.data);
    worker.onerror = (event) => {
      fail([{ field: '', message: `the planner worker failed: ${event.message || 'no message'}` }]);
      this.#endWorker();
    };
    worker.postMessage(message);
  }

  #endWorker(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
  }

  #running(on: boolean): void {
    // Disabling the focused button drops the focus to the page: a search started from Search (or stopped from
    // Cancel) gives it back to Search when it ends, so the keyboard stays where it was.
    const hadFocus = document.activeElement === this.#run || document.activeElement === this.#cancel;
    this.#run.disabled = on;
    this.#whichGpu.disabled = on;
    this.#cancel.disabled = !on;
    this.element.classList.toggle('running', on);
    if (on) this.#focusOnEnd = hadFocus || this.#focusOnEnd;
    else if (this.#focusOnEnd && (document.activeElement === document.body || document.activeElement === null || hadFocus)) {
      this.#focusOnEnd = false;
      this.#run.focus();
    } else this.#focusOnEnd = false;
  }
  #focusOnEnd = false;

  #render(): void {
    const plan = this.#plan,
      request = this.#request;
    if (!plan || !request) return;
    const ckpt = this.#ckptFilter.value;
    // The recommended row (the fastest that fits) comes first whatever the sort, on or off the Pareto front; the
    // checkpointing and same-node filters apply to it as to the others (the line above the table names it).
    const best = plan.rows[plan.recommended.index];
    const matches = (r: PlanRow) => (!ckpt || r.ckpt === ckpt) && (!this.#sameNode.checked || !(r.tpCrossesNode || r.cpCrossesNode));
    const rows = plan.rows
      .filter((r) => r !== best && (!this.#paretoOnly.checked || r.pareto) && matches(r))
      .sort(SORTS[(this.#sort.value as SortKey) in SORTS ? (this.#sort.value as SortKey) : 'peak']);
    if (best && matches(best)) rows.unshift(best);
    if (rows.length === 0) {
      replaceChildren(
        this.#table,
        el(
          'p',
          {},
          plan.rows.length === 0
            ? 'Nothing fits. Try more GPUs, a larger GPU, a shorter sequence or a smaller global batch.'
            : 'No row matches the filters.',
        ),
      );
      return;
    }
    const unit = UNIT_LABEL[this.#unit];
    const moe = request.base.experts > 0;
    // The answers first (peak, tokens/s, MFU), so that a phone's narrow table shows them before it scrolls; then
    // the layout that gives them. Each cell names its column (data-col) for scripts and tests.
    type Column = { key: string; title: string; cell: (r: PlanRow) => string; value?: boolean };
    const columns: Column[] = [
      { key: 'peak', title: `peak ${unit}`, cell: (r) => formatBytes(r.peakBytes, this.#unit), value: true },
      {
        key: 'tokens',
        title: 'tokens/s/GPU',
        cell: (r) => (r.stepTimeSeconds > 0 ? formatCount(Math.round(r.tokensPerSecondPerGpu)) : '–'),
        value: true,
      },
      { key: 'mfu', title: 'MFU', cell: (r) => (r.stepTimeSeconds > 0 ? formatPercentTenth(r.mfu) : '–'), value: true },
      {
        key: 'vs-best',
        title: 'vs best',
        cell: (r) =>
          !best || !(r.stepTimeSeconds > 0 && best.stepTimeSeconds > 0)
            ? '–'
            : r === best
              ? 'best'
              : `+${formatPercentTenth(r.stepTimeSeconds / best.stepTimeSeconds - 1)}`,
        value: true,
      },
      // The run on train_tokens at each row's step where the base sets a budget (the cost with a price).
      ...(
        [
          ['days', 'run days', (r) => r.runDays, formatDays],
          ['gpu-hours', 'GPU-hours', (r) => Math.round(r.runGpuHours), formatCount],
          ['cost', 'cost $', (r) => Math.round(r.runCostUsd), formatCount],
        ] as [string, string, (r: PlanRow) => number, (n: number) => string][]
      )
        .filter(([key]) => request.base.train_tokens > 0 && (key !== 'cost' || request.base.gpu_hour_usd > 0))
        .map(([key, title, get, format]) => ({ key, title, cell: (r: PlanRow) => (get(r) > 0 ? format(get(r)) : '–'), value: true })),
      { key: 'tp', title: 'TP', cell: (r) => formatCount(r.tp), value: true },
      { key: 'pp', title: 'PP', cell: (r) => formatCount(r.pp), value: true },
      { key: 'cp', title: 'CP', cell: (r) => formatCount(r.cp), value: true },
      { key: 'dp', title: 'DP', cell: (r) => formatCount(r.dp), value: true },
      ...(moe ? [{ key: 'ep', title: 'EP', cell: (r: PlanRow) => formatCount(r.ep), value: true }] : []),
      { key: 'zero', title: 'ZeRO', cell: (r) => formatCount(r.zero), value: true },
      { key: 'sp', title: 'SP', cell: (r) => (r.sp ? 'on' : 'off') },
      { key: 'ckpt', title: 'ckpt', cell: (r) => r.ckpt },
      { key: 'mb', title: 'mb', cell: (r) => formatCount(r.mb), value: true },
      { key: 'm', title: 'm', cell: (r) => formatCount(r.microbatches), value: true },
      { key: 'headroom', title: `headroom ${unit}`, cell: (r) => formatBytes(r.headroomBytes, this.#unit), value: true },
      { key: 'recompute', title: 'recompute', cell: (r) => formatPercentTenth(r.recomputeOverhead), value: true },
      { key: 'bubble', title: 'bubble', cell: (r) => formatPercentTenth(r.bubble), value: true },
    ];
    const head = el(
      'tr',
      {},
      el('th', { scope: 'col', title: 'load the row into the checklist' }, el('span', { class: 'visually-hidden' }, 'Load')),
      ...[...columns.map((c) => c.title), 'notes'].map((h) =>
        el('th', { scope: 'col', title: COLUMN_HELP[h] ?? COLUMN_HELP[h.split(' ')[0]!] ?? '' }, h),
      ),
    );
    // Rows that differ only in what the table does not show (how uneven stages split) collapse into one.
    const seen = new Set<string>();
    const distinct = rows.filter((r) => {
      const key = [r.tp, r.pp, r.cp, r.dp, r.ep, r.zero, r.sp, r.ckpt, r.mb, r.microbatches].join(',');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const body = distinct.slice(0, SHOWN_ROWS).map((r) => {
      const notes = [
        r === best ? 'recommended' : '',
        r.pareto ? 'Pareto' : '',
        r.asFast && r !== best ? 'as fast (band)' : '',
        r.tpCrossesNode ? 'TP crosses nodes' : '',
        r.cpCrossesNode ? 'CP crosses nodes' : '',
        request.base.layers % r.pp !== 0 ? 'uneven stages' : '',
        r.verdict === 'tight' ? 'tight' : '',
      ]
        .filter(Boolean)
        .join(', ');
      // The row's configuration comes from the planner's module (loaded for the plan, so at once).
      const load = () => void loadPlannerEngine().then((planner) => this.#onLoad(planner.planRowConfig(request.base, r)));
      const layout =
        `TP ${r.tp} × PP ${r.pp} × CP ${r.cp} × DP ${r.dp}${moe ? `, EP ${r.ep}` : ''}, ZeRO ${r.zero}, ` +
        `SP ${r.sp ? 'on' : 'off'}, ckpt ${r.ckpt}, micro-batch ${r.mb} × ${r.microbatches}`;
      const button = el(
        'button',
        { type: 'button', class: 'plan-load', 'aria-label': `Load ${layout} into the checklist`, title: `Load ${layout}` },
        'Load',
      );
      button.addEventListener('click', (event) => {
        event.stopPropagation();
        load();
      });
      const tr = el(
        'tr',
        {
          class: [r === best ? 'recommended' : '', r.pareto ? 'pareto' : ''].filter(Boolean).join(' '),
          'data-peak-bytes': String(r.peakBytes),
          title: 'Load this configuration into the checklist',
        },
        el('td', {}, button),
        ...columns.map((c) => el('td', { class: c.value ? 'value' : '', 'data-col': c.key }, c.cell(r))),
        el('td', { class: 'note', 'data-col': 'notes' }, notes),
      );
      // A click anywhere on the row loads it too; the keyboard reaches it through its Load button.
      tr.addEventListener('click', load);
      return tr;
    });
    replaceChildren(
      this.#table,
      best
        ? el(
            'p',
            { id: 'plan-recommended', class: 'plan-recommended' },
            el('strong', {}, 'Recommended (estimated): '),
            plan.recommended.reason,
            '. The first row; click it to load it.',
          )
        : null,
      el('table', { class: 'plan-rows' }, el('thead', {}, head), el('tbody', {}, ...body)),
      distinct.length > SHOWN_ROWS
        ? el(
            'p',
            { class: 'note' },
            `${formatCount(SHOWN_ROWS)} of ${formatCount(distinct.length)} rows shown; sort or filter to see others.`,
          )
        : null,
    );
  }
}
