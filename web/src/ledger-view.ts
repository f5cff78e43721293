// The checklist as the chapter lays it out (component, formula, value, note; total against capacity),
// the verdict, and a stacked bar of the components against the capacity and the headroom line.
// Built once per set of ledger lines and then updated in place: a field change touches only the text
// and attributes that changed, which keeps a re-render (layout included) within a few milliseconds.
import type { Config, Engine, Ledger, Problem } from './engine';
import { el, replaceChildren, setText, svg } from './dom';
import {
  band,
  formatBytes,
  formatCount,
  formatDays,
  formatPercent,
  formatPercentTenth,
  formatSeconds,
  formatWithUnit,
  methodText,
  RESERVED_NOTE,
  servingOpening,
  UNIT_LABEL,
  UNIT_MEANING,
  verdictSentence,
  VERDICT_TEXT,
  type Unit,
} from './format';

// The bar stretches to any width (preserveAspectRatio none, a fixed CSS height); its labels are HTML, so they keep
// their size at every width.
const BAR_WIDTH = 1000;
/** How long the verdict waits after the last edit before it is read out (a burst of keystrokes: one reading). */
const ANNOUNCE_DELAY_MS = 600;
const BAR_HEIGHT = 40;
const BAR_Y = 4;
const BAR_THICKNESS = 32;

function setAttr(node: Element, name: string, value: string | number): void {
  const text = String(value);
  if (node.getAttribute(name) !== text) node.setAttribute(name, text);
}

interface Row {
  tr: HTMLTableRowElement;
  label: HTMLElement;
  formula: HTMLElement;
  substituted: HTMLElement;
  value: HTMLElement;
  note: HTMLElement;
  segment: SVGRectElement;
  segmentTitle: SVGTitleElement;
  legend: HTMLElement;
}

interface Summary {
  tr: HTMLTableRowElement;
  formula: HTMLElement;
  value: HTMLElement;
  note: HTMLElement;
}

interface Marker {
  line: SVGLineElement;
  label: HTMLSpanElement;
}

/** The caption's prefix while the table holds the last valid configuration's numbers. */
const STALE_CAPTION = 'Out of date (the last valid configuration; fix the fields above):';

export class LedgerView {
  readonly #engine: Engine;
  readonly element: HTMLElement;
  /** The answer at a glance, kept in view: the verdict, what it is for (#summary), the bar. */
  readonly answer: HTMLElement;
  readonly #verdict = el('div', { id: 'verdict', class: 'verdict', tabindex: -1 });
  readonly #summary = el('p', { id: 'summary', class: 'summary' });
  /** The step-time estimate in one line (training), and its parts in a table below the ledger. */
  readonly #speed = el('p', { id: 'step-time', class: 'step-time' });
  readonly #run = el('p', { id: 'run-time', class: 'step-time', hidden: '' });
  /** Inference: the most concurrent sequences and the longest context, as vLLM's start-up log states them. */
  readonly #serving = el('p', { id: 'serving', class: 'step-time' });
  /** How far the method has been from measured runs like this one: the band the verdict is read against. */
  readonly #band = el('p', { id: 'band', class: 'band' });
  /** The largest components, named in the first screen (a phone hides the bar's legend). */
  readonly #largest = el('p', { id: 'largest', class: 'largest' });
  /** The one live region that reads the verdict out, once edits pause (the verdict itself is not live). */
  readonly #announce = el('p', { id: 'announce', class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  #announceTimer: number | undefined;
  /** "N ways to make it fit": a link from the verdict to the advice, once it is known. */
  readonly #ways = el('a', { id: 'ways', class: 'ways', href: '#advice', hidden: true });
  /** The values an import could not read from its file, each a link to its field. */
  readonly #assumed = el('p', { id: 'assumed', class: 'assumed', hidden: true });
  #assumedKey = '';
  readonly #speedParts = el('details', { id: 'step-time-parts', class: 'step-time-parts' });
  #speedKey = '';
  /** The parts' rows by part id: what a field change rewrites in place. */
  #speedRows = new Map<string, { label: HTMLElement; formula: HTMLElement; seconds: HTMLElement; share: HTMLElement }>();
  readonly #speedNote = el('p', { class: 'note' });
  readonly #bar = el('figure', { id: 'bar', class: 'bar' });
  readonly #table = el('table', { id: 'ledger', class: 'ledger' });
  readonly #warnings = el('ul', { id: 'warnings', class: 'warnings' });
  #rows = new Map<string, Row>();
  #layoutKey = '';
  #summaries = new Map<string, Summary>();
  #valueHeader = el('th', { scope: 'col', class: 'value' });
  #caption = el('caption');
  #capacityRect = svg('rect', { class: 'capacity', x: 0, y: BAR_Y, height: BAR_THICKNESS });
  #capacityMarker: Marker | undefined;
  #usableMarker: Marker | undefined;
  #chart = svg('svg', { viewBox: `0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`, role: 'img', preserveAspectRatio: 'none' });
  #track = el('div', { class: 'bar-track' });
  #verdictStrong = el('strong');
  #verdictTotal = el('span', { class: 'total' });
  #verdictMargin = el('span', { class: 'margin' });
  #warningsKey = '';

  constructor(engine: Engine) {
    this.#engine = engine;
    this.answer = el(
      'section',
      { id: 'answer', class: 'answer', 'aria-label': 'Verdict' },
      this.#verdict,
      this.#summary,
      this.#speed,
      this.#run,
      this.#serving,
      this.#band,
      this.#largest,
      this.#ways,
      this.#assumed,
      this.#bar,
      this.#announce,
    );
    this.element = el('section', { id: 'result', 'aria-label': 'Memory ledger' }, this.#table, this.#warnings, this.#speedParts);
  }

  /** What the verdict is for: model · framework · layout = GPUs · GPU · mode. */
  setSummary(text: string): void {
    setText(this.#summary, text);
  }

  /** Moves focus to the verdict (after a planner row or an import is loaded). */
  focusVerdict(): void {
    this.#verdict.focus();
  }

  show(ledger: Ledger, config: Config, unit: Unit): void {
    this.element.classList.remove('invalid');
    this.answer.classList.remove('invalid');
    this.element.dataset.stale = 'false';
    this.answer.dataset.stale = 'false';
    const layoutKey = ledger.lines.map((l) => l.id).join(',');
    if (layoutKey !== this.#layoutKey || this.#verdict.firstChild !== this.#verdictStrong) this.#build(ledger);
    this.#layoutKey = layoutKey;
    this.#updateVerdict(ledger, unit);
    this.#updateBar(ledger, unit);
    const largest = [...ledger.lines]
      .filter((l) => l.bytes > 0)
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3)
      .map((l) => `${l.label} ${formatWithUnit(l.bytes, unit)}`);
    setText(this.#largest, `Largest: ${largest.join(' · ')}`);
    setAttr(this.#band, 'data-validated', String(ledger.errorBand.validated));
    setText(this.#band, `Accuracy: ${ledger.errorBand.text}`);
    this.#say(
      `${VERDICT_TEXT[ledger.verdict]}: ${formatWithUnit(ledger.totalBytes, unit)} of ${formatWithUnit(ledger.capacityBytes, unit)} per GPU`,
    );
    this.#updateTable(ledger, config, unit);
    this.#updateSpeed(ledger);
    this.#updateRun(ledger, config);
    this.#updateServing(ledger, config);
    const warningsKey = ledger.warnings.map((w) => `${w.field}\u0000${w.message}`).join('\u0001');
    if (warningsKey !== this.#warningsKey) {
      replaceChildren(this.#warnings, ...ledger.warnings.map((w) => el('li', { 'data-field': w.field }, w.message)));
      this.#warningsKey = warningsKey;
    }
  }

  /** No numbers for an invalid configuration: the errors, next to their fields and here. */
  showErrors(errors: Problem[], labelOf: (key: string) => string | undefined = () => undefined): void {
    this.element.classList.add('invalid');
    this.answer.classList.add('invalid');
    this.#verdict.className = 'verdict invalid';
    this.#verdict.dataset.verdict = 'error';
    // Each problem links to its field, named by its label (main.ts opens its group and focuses it).
    const item = (e: Problem) => {
      const label = labelOf(e.field);
      return label
        ? el('li', {}, el('a', { href: `#f-${e.field}`, 'data-field': e.field }, label), `: ${e.message}`)
        : el('li', {}, e.message);
    };
    this.#say(`Not computed: ${errors.map((e) => e.message).join('; ')}`);
    replaceChildren(
      this.#verdict,
      el('strong', {}, 'Not computed'),
      el('span', {}, ` — fix ${errors.length === 1 ? 'this field' : `these ${errors.length} fields`} first:`),
      el('ul', {}, ...errors.map(item)),
    );
    // The last valid result stays, greyed and marked out of date, until the configuration is valid again.
    const stale = this.#layoutKey !== '';
    this.element.dataset.stale = String(stale);
    this.answer.dataset.stale = String(stale);
    if (stale && !this.#caption.textContent!.startsWith(STALE_CAPTION))
      setText(this.#caption, `${STALE_CAPTION} ${this.#caption.textContent}`);
    replaceChildren(this.#warnings);
    this.#updateSpeed(undefined);
    this.#updateRun(undefined, undefined);
    this.#updateServing(undefined, undefined);
    this.#warningsKey = '';
  }

  /** Reads `text` out once the edits pause: one announcement for a burst of keystrokes, not one per character. */
  #say(text: string): void {
    if (this.#announceTimer !== undefined) window.clearTimeout(this.#announceTimer);
    this.#announceTimer = window.setTimeout(() => {
      this.#announceTimer = undefined;
      if (this.#announce.textContent !== text) this.#announce.textContent = text;
    }, ANNOUNCE_DELAY_MS);
  }

  /** How many of the advice's changes make the configuration fit; 0 hides the link. */
  setWays(fitting: number): void {
    this.#ways.hidden = fitting === 0;
    setText(this.#ways, fitting === 1 ? '1 way to make it fit ↓' : `${fitting} ways to make it fit ↓`);
  }

  /** "Computed with assumed values": what the imported file does not say, each linked to its field. */
  setAssumed(items: { field: string; label: string; value: string }[]): void {
    const key = items.map((i) => `${i.field}=${i.value}`).join('&');
    if (key === this.#assumedKey) return;
    this.#assumedKey = key;
    this.#assumed.hidden = items.length === 0;
    replaceChildren(
      this.#assumed,
      ...(items.length === 0
        ? []
        : [
            el('strong', {}, 'Computed with assumed values'),
            ' — the imported file does not say; needs your input: ',
            ...items.flatMap((i, n) => [
              n > 0 ? ', ' : '',
              el('a', { href: `#f-${i.field}`, 'data-field': i.field }, i.label),
              ` = ${i.value}`,
            ]),
          ]),
    );
  }

  /** Inference's answers in the sticky header: the engine caps the context by the model's window. */
  #updateServing(ledger: Ledger | undefined, config: Config | undefined): void {
    const serving = ledger !== undefined && config !== undefined && config.mode === 'inference';
    this.#serving.hidden = !serving;
    if (!serving) return;
    const window = config.context_window > 0 ? ` (the model's window: ${formatCount(config.context_window)})` : '';
    setText(
      this.#serving,
      `Maximum concurrency for ${formatCount(config.seq)} tokens per request: ${formatCount(ledger.maxSequences)} sequences · ` +
        `longest context at ${formatCount(config.mb)} sequences: ${formatCount(ledger.maxContextTokens)} tokens${window}`,
    );
  }

  /** The run on train_tokens at the estimated step (days, GPU-hours, the cost with a price); hidden where not set. */
  #updateRun(ledger: Ledger | undefined, config: Config | undefined): void {
    const st = ledger?.stepTime ?? null;
    const shown = st !== null && config !== undefined && st.runSteps > 0;
    this.#run.hidden = !shown;
    if (!shown) return;
    // The GPUs the engine counts the run's GPU-hours on: its world size, not a product restated here.
    const gpus = this.#engine.worldSize(config);
    const whole = (x: number): string => formatCount(Math.round(x));
    const cost =
      config.gpu_hour_usd > 0
        ? `, $${whole(st.runCostUsd)}${band(st.runCostUsdLow, st.runCostUsdHigh, whole)} at $${config.gpu_hour_usd} per GPU-hour`
        : '';
    setText(
      this.#run,
      `Run (estimate): ${formatCount(config.train_tokens)} tokens in ${formatCount(st.runSteps)} optimizer steps: ` +
        `${formatDays(st.runDays)}${band(st.runDaysLow, st.runDaysHigh, formatDays)} days on ${formatCount(gpus)} GPUs, ` +
        `${whole(st.runGpuHours)}${band(st.runGpuHoursLow, st.runGpuHoursHigh, whole)} GPU-hours${cost}`,
    );
  }

  /**
   * The estimate's line and its parts, hidden where there is none (no GPU speed): the step time in training, the
   * serving speed (TTFT, TPOT, throughput) in inference.
   */
  #updateSpeed(ledger: Ledger | undefined): void {
    const st = ledger?.stepTime ?? null;
    const sv = ledger?.servingTime ?? null;
    const shown = st !== null || sv !== null;
    this.#speed.hidden = !shown;
    this.#speedParts.hidden = !shown;
    if (!shown) return;
    const parts = st !== null ? st.parts : sv!.decodeParts;
    // Under a benchmark (num_prompts set) the figures are its means over the requests, and the line says so.
    const bench = sv?.benchmark ?? null;
    const mean = bench !== null ? 'mean ' : '';
    const total = st !== null ? st.stepSeconds : sv!.tpotSeconds;
    const line =
      st !== null
        ? `Estimated step ${formatSeconds(st.stepSeconds)}${band(st.stepSecondsLow, st.stepSecondsHigh, formatSeconds)} · ` +
          `${formatCount(Math.round(st.tokensPerSecondPerGpu))}${band(st.tokensPerSecondPerGpuLow, st.tokensPerSecondPerGpuHigh, (x) => formatCount(Math.round(x)))} tokens/s per GPU · ` +
          `MFU ${formatPercentTenth(st.mfu)} · an estimate`
        : servingOpening(sv!) +
          `${mean}TTFT ${formatSeconds(sv!.ttftSeconds)}${band(sv!.ttftSecondsLow, sv!.ttftSecondsHigh, formatSeconds)}${bench ? ` (P99 ${formatSeconds(bench.ttftP99Seconds)})` : ''} · ` +
          `${mean}TPOT ${formatSeconds(sv!.tpotSeconds)}${band(sv!.tpotSecondsLow, sv!.tpotSecondsHigh, formatSeconds)}${bench ? ` (P99 ${formatSeconds(bench.tpotP99Seconds)})` : ''} · ` +
          `${formatCount(Math.round(sv!.outputTokensPerSecondPerGpu))}${band(sv!.outputTokensPerSecondPerGpuLow, sv!.outputTokensPerSecondPerGpuHigh, (x) => formatCount(Math.round(x)))} output tokens/s per GPU · an estimate`;
    setText(this.#speed, line);
    // The parts' table is built when its rows change (training or serving, which parts take time) and otherwise
    // updated in place: a field change rewrites a few numbers, not the table (each rebuilt cell is laid out again).
    const shownParts = parts.filter((p) => p.seconds > 0);
    const key = `${st !== null}\u0000${shownParts.map((p) => p.id).join(',')}`;
    if (key !== this.#speedKey) {
      this.#speedKey = key;
      this.#speedRows = new Map();
      const rows = shownParts.map((p) => {
        const row = {
          label: el('th', { scope: 'row' }),
          formula: el('td', { class: 'formula' }),
          seconds: el('td', { class: 'value' }),
          share: el('td', { class: 'value' }),
        };
        this.#speedRows.set(p.id, row);
        return el('tr', { 'data-part': p.id }, row.label, row.formula, row.seconds, row.share);
      });
      replaceChildren(
        this.#speedParts,
        el(
          'summary',
          {},
          st !== null ? 'Step time (estimate): what the step waits for' : 'Time per output token (estimate): what a decode step waits for',
        ),
        el(
          'table',
          { class: 'step-parts' },
          el('thead', {}, el('tr', {}, ...['Part', 'How it is computed', 'Seconds', 'Share'].map((h) => el('th', { scope: 'col' }, h)))),
          el('tbody', {}, ...rows),
        ),
        this.#speedNote,
      );
    }
    for (const p of shownParts) {
      const row = this.#speedRows.get(p.id)!;
      setText(row.label, p.label);
      setText(row.formula, p.formula);
      setText(row.seconds, formatSeconds(p.seconds));
      setText(row.share, formatPercentTenth(p.seconds / total));
    }
    setText(this.#speedNote, st !== null ? st.assumptions : sv!.assumptions);
  }

  #build(ledger: Ledger): void {
    replaceChildren(this.#verdict, this.#verdictStrong, this.#verdictTotal, this.#verdictMargin);
    this.#rows = new Map();
    replaceChildren(this.#chart, this.#capacityRect);
    const body = el('tbody');
    const legend = el('ul', { class: 'legend' });
    for (const line of ledger.lines) {
      const row: Row = {
        tr: el('tr', { 'data-line': line.id }),
        label: el('span'),
        formula: el('code'),
        substituted: el('div', { class: 'substituted' }),
        value: el('td', { class: 'value' }),
        note: el('td', { class: 'note' }),
        segment: svg('rect', { class: `segment seg-${line.id}`, y: BAR_Y, height: BAR_THICKNESS, 'data-line': line.id }),
        segmentTitle: svg('title'),
        legend: el('span'),
      };
      row.tr.append(
        el('th', { scope: 'row' }, el('span', { class: `swatch seg-${line.id}`, 'aria-hidden': 'true' }), row.label),
        el('td', { class: 'formula' }, row.formula, row.substituted),
        row.value,
        row.note,
      );
      row.segment.appendChild(row.segmentTitle);
      this.#chart.appendChild(row.segment);
      legend.appendChild(el('li', {}, el('span', { class: `swatch seg-${line.id}`, 'aria-hidden': 'true' }), row.legend));
      body.appendChild(row.tr);
      this.#rows.set(line.id, row);
    }
    this.#capacityMarker = this.#marker('capacity-line');
    this.#usableMarker = this.#marker('usable');
    replaceChildren(this.#track, this.#chart, this.#capacityMarker.label, this.#usableMarker.label);
    replaceChildren(this.#bar, this.#track, el('figcaption', {}, legend));

    const foot = el('tfoot');
    this.#summaries = new Map();
    for (const [id, label] of [
      ['total', 'Total'],
      ['reserved', 'Reserved'],
      ['capacity', 'Capacity'],
      ['usable', 'Usable'],
      ['headroom_left', 'Left'],
    ] as const) {
      const summary: Summary = {
        tr: el('tr', { 'data-summary': id }),
        formula: el('td', { class: 'formula' }),
        value: el('td', { class: 'value' }),
        note: el('td', { class: 'note' }),
      };
      summary.tr.append(el('th', { scope: 'row' }, label), summary.formula, summary.value, summary.note);
      foot.appendChild(summary.tr);
      this.#summaries.set(id, summary);
    }
    const head = el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'Component'),
        el('th', { scope: 'col' }, 'Formula'),
        this.#valueHeader,
        el('th', { scope: 'col', class: 'note' }, 'Notes'),
      ),
    );
    const columns = el(
      'colgroup',
      {},
      el('col', { class: 'c-label' }),
      el('col', { class: 'c-formula' }),
      el('col', { class: 'c-value' }),
      el('col', { class: 'c-note' }),
    );
    replaceChildren(this.#table, this.#caption, columns, head, body, foot);
  }

  #marker(cls: string): Marker {
    const marker = {
      line: svg('line', { class: cls, y1: 0, y2: BAR_HEIGHT, 'vector-effect': 'non-scaling-stroke' }),
      label: el('span', { class: `bar-label ${cls}-label` }),
    };
    this.#chart.append(marker.line);
    return marker;
  }

  #updateVerdict(ledger: Ledger, unit: Unit): void {
    setAttr(this.#verdict, 'class', `verdict ${ledger.verdict}`);
    setAttr(this.#verdict, 'data-verdict', ledger.verdict);
    setText(this.#verdictStrong, VERDICT_TEXT[ledger.verdict]);
    setText(this.#verdictTotal, ` ${formatWithUnit(ledger.totalBytes, unit)} of ${formatWithUnit(ledger.capacityBytes, unit)} per GPU`);
    setText(this.#verdictMargin, ` — ${verdictSentence(ledger, unit)}`);
  }

  #updateBar(ledger: Ledger, unit: Unit): void {
    const scale = Math.max(ledger.capacityBytes, ledger.totalBytes);
    const x = (bytes: number) => (scale > 0 ? (bytes / scale) * BAR_WIDTH : 0);
    setAttr(
      this.#chart,
      'aria-label',
      `Stacked bar: ${formatWithUnit(ledger.totalBytes, unit)} used of ${formatWithUnit(ledger.capacityBytes, unit)}`,
    );
    setAttr(this.#capacityRect, 'width', x(ledger.capacityBytes));
    let offset = 0;
    for (const line of ledger.lines) {
      const row = this.#rows.get(line.id)!;
      setAttr(row.segment, 'x', x(offset));
      setAttr(row.segment, 'width', line.bytes > 0 ? Math.max(x(line.bytes), 0.5) : 0);
      setText(row.segmentTitle, `${line.label}: ${formatWithUnit(line.bytes, unit)}`);
      setText(row.legend, `${line.label} ${formatBytes(line.bytes, unit)}`);
      offset += Math.max(line.bytes, 0);
    }
    // Capacity labelled above the bar, the headroom line below, each on the side with room for it.
    const place = (marker: Marker | undefined, bytes: number, text: string) => {
      if (!marker) return;
      const at = Math.min(Math.max(x(bytes), 1), BAR_WIDTH - 1);
      const anchorEnd = at > BAR_WIDTH / 2;
      setAttr(marker.line, 'x1', at);
      setAttr(marker.line, 'x2', at);
      const percent = `${(at / BAR_WIDTH) * 100}%`;
      // CSSOM, not a style attribute: the page's policy allows no inline styles in markup.
      if (anchorEnd) {
        marker.label.style.left = '';
        marker.label.style.right = `calc(100% - ${percent} + 5px)`;
      } else {
        marker.label.style.right = '';
        marker.label.style.left = `calc(${percent} + 5px)`;
      }
      setText(marker.label, text);
    };
    place(this.#capacityMarker, ledger.capacityBytes, `capacity ${formatWithUnit(ledger.capacityBytes, unit)}`);
    place(this.#usableMarker, ledger.usableBytes, `headroom line ${formatWithUnit(ledger.usableBytes, unit)}`);
  }

  #updateTable(ledger: Ledger, config: Config, unit: Unit): void {
    const active =
      ledger.activeParameterCount !== ledger.parameterCount ? ` (${formatCount(ledger.activeParameterCount)} active per token)` : '';
    setText(
      this.#caption,
      `Per-GPU memory, method ${methodText(ledger, config)}, Ψ = ${formatCount(ledger.parameterCount)} parameters${active}`,
    );
    setText(this.#valueHeader, `Value (${UNIT_LABEL[unit]})`);
    for (const line of ledger.lines) {
      const row = this.#rows.get(line.id)!;
      setAttr(row.tr, 'data-bytes', String(line.bytes));
      setText(row.label, line.label);
      setText(row.formula, line.formula);
      setText(row.substituted, `= ${line.substituted}`);
      setText(row.value, formatBytes(line.bytes, unit));
      setText(row.note, line.note);
    }
    const summary = (id: string, formula: string, bytes: number, note: string) => {
      const s = this.#summaries.get(id)!;
      setAttr(s.tr, 'data-bytes', String(bytes));
      setText(s.formula, formula);
      setText(s.value, formatBytes(bytes, unit));
      setText(s.note, note);
    };
    summary('total', 'sum', ledger.totalBytes, `Must be < ${formatWithUnit(ledger.capacityBytes, unit)}`);
    summary('reserved', 'caching allocator', ledger.reservedBytes, RESERVED_NOTE);
    this.#summaries.get('reserved')!.tr.hidden = !(ledger.reservedBytes > 0);
    summary('capacity', config.gpu, ledger.capacityBytes, UNIT_MEANING[unit]);
    summary(
      'usable',
      `capacity × (1 − ${config.headroom})`,
      ledger.usableBytes,
      `${formatPercent(config.headroom)} kept free for fragmentation`,
    );
    const left = ledger.capacityBytes - ledger.totalBytes;
    summary('headroom_left', 'capacity − total', left, left >= 0 ? 'free on each GPU' : 'short on each GPU');
  }
}

/** What the verdict is for: "Llama-3.1 70B · megatron · TP 8 × PP 1 × DP 32 = 256 GPUs · NVIDIA H100 80GB · training". */
export function layoutSummary(engine: Engine, config: Config): string {
  const model = config.name || engine.modelPresets.find((p) => p.id === config.model)?.label || 'custom model';
  const gpu = engine.gpuPresets.find((p) => p.id === config.gpu)?.label ?? `${config.gpu_gb} GB GPU`;
  const axes = [`TP ${config.tp}`, `PP ${config.pp}`, ...(config.cp > 1 ? [`CP ${config.cp}`] : []), `DP ${config.dp}`];
  const gpus = engine.worldSize(config);
  const ep = config.experts > 0 && config.ep > 1 ? ` (EP ${config.ep})` : '';
  const framework = config.method === 'membudget' && config.mode === 'training' ? [config.framework] : [];
  return [model, ...framework, `${axes.join(' × ')} = ${formatCount(gpus)} GPU${gpus === 1 ? '' : 's'}${ep}`, gpu, config.mode].join(' · ');
}
