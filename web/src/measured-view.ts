// The checklist's optional "measured" column: what a run really took, per ledger line, typed in or read
// from the file tools/measure/measure.py writes (membudget-measured/1), next to the difference from the
// prediction. The predicted side is the engine's own (measurableLines: the lines during forward and
// backward, where a run measures them); the only arithmetic here is measured − predicted and its share
// of the prediction. Every string reaches the page as textContent or an input's value.
import { MembudgetError, type Config, type Engine, type Ledger, type Line, type MeasuredFileRead } from './engine';
import { readMeasured, tooLarge } from './tools';
import { el, replaceChildren } from './dom';
import { formatBytes, groupedDecimal, UNIT_BYTES, UNIT_LABEL, type Unit } from './format';

export const MEASURED_FORMAT = 'membudget-measured/1';
const TOTAL = 'total';
// |measured − predicted| / predicted below GOOD is green, below FAIR amber, else red.
const GOOD = 0.05;
const FAIR = 0.15;
const SHOWN_DIFFERENCES = 6;

/** One measured value as the user gave it: the text, and its bytes or why it has none. */
interface Entry {
  text: string;
  bytes?: number;
  error?: string;
}

interface Cell {
  td: HTMLTableCellElement;
  input: HTMLInputElement;
  difference: HTMLElement;
  reference: HTMLElement;
  error: HTMLElement;
}

export function parseAmount(text: string, label: string, unit: Unit): Entry {
  const trimmed = text.trim();
  if (trimmed === '') return { text };
  const shown = trimmed.length > 24 ? `${trimmed.slice(0, 24)}…` : trimmed;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed))
    return { text, error: `${label}: “${shown}” is not a number of ${UNIT_LABEL[unit]}` };
  const value = Number(trimmed);
  if (value < 0) return { text, error: `${label}: a measured value cannot be negative (got ${shown})` };
  const bytes = Math.round(value * UNIT_BYTES[unit]);
  if (!Number.isFinite(bytes) || bytes > Number.MAX_SAFE_INTEGER)
    return { text, error: `${label}: ${shown} ${UNIT_LABEL[unit]} is more bytes than can be counted exactly` };
  return { text, bytes };
}

// Enough digits to read back the bytes of a measured line to within a few kB, without grouping.
// Made on first use, not when the page's script is evaluated: the first Intl formatter loads ICU's number data
// (format.ts groupedDecimal), which the first ledger should not wait for.
let inputNumber: Intl.NumberFormat | undefined;
const inputText = (value: number) =>
  (inputNumber ??= new Intl.NumberFormat('en-US', { maximumSignificantDigits: 7, useGrouping: false })).format(value);

function signed(value: number, text: string): string {
  return `${value < 0 ? '−' : '+'}${text}`;
}

export class MeasuredView {
  readonly element: HTMLDetailsElement;
  readonly #engine: Engine;
  readonly #onLoadConfig: (config: Config) => void;
  readonly #entries = new Map<string, Entry>();
  readonly #cells = new Map<string, Cell>();
  readonly #header = el('th', { scope: 'col', class: 'measured' });
  readonly #column = el('col', { class: 'c-measured' });
  readonly #spacers = new Map<string, HTMLTableCellElement>();
  readonly #text = el('textarea', {
    id: 'measured-json',
    rows: 4,
    spellcheck: 'false',
    placeholder: '{"format": "membudget-measured/1", …}',
    'aria-label': 'Measured JSON (membudget-measured/1)',
  });
  readonly #message = el('div', { id: 'measured-message', class: 'message', 'aria-live': 'polite' });
  readonly #configNotice = el('div', { id: 'measured-config', class: 'measured-config' });
  readonly #configText = el('p');
  readonly #notPredicted = el('p', { id: 'measured-not-predicted', class: 'note' });
  #fileConfig: Config | undefined;
  #predicted = new Map<string, number>();
  #ledger: Ledger | undefined;
  #config: Config | undefined;
  #table: HTMLTableElement | undefined;
  #unit: Unit = 'gb';

  constructor(engine: Engine, onLoadConfig: (config: Config) => void) {
    this.#engine = engine;
    this.#onLoadConfig = onLoadConfig;
    const file = el('input', { id: 'measured-file', type: 'file', accept: '.json,application/json', 'aria-label': 'Measured file (JSON)' });
    const apply = el('button', { id: 'measured-apply', type: 'button' }, 'Compare');
    const clear = el('button', { id: 'measured-clear', type: 'button' }, 'Clear');
    const load = el('button', { id: 'measured-load-config', type: 'button' }, 'Load its configuration');
    apply.addEventListener('click', () => this.#applyFile(this.#text.value));
    clear.addEventListener('click', () => this.#clear());
    load.addEventListener('click', () => {
      if (this.#fileConfig) this.#onLoadConfig(this.#fileConfig);
    });
    // A file is checked for size before it is read: nothing over the limit is loaded into the page.
    const readFile = (chosen: File, show: boolean) => {
      const refused = tooLarge(chosen.name, chosen.size);
      if (refused) return this.#showRefusal(refused.problems.map((p) => p.message));
      void chosen.text().then((json) => {
        if (show) this.#text.value = json;
        this.#applyFile(json);
      });
    };
    file.addEventListener('change', () => {
      const chosen = file.files?.[0];
      if (chosen) readFile(chosen, false);
    });
    this.#text.addEventListener('drop', (event) => {
      const dropped = event.dataTransfer?.files?.[0];
      if (!dropped) return;
      event.preventDefault();
      readFile(dropped, true);
    });
    this.#configNotice.append(this.#configText, load);
    this.#configNotice.hidden = true;
    this.element = el(
      'details',
      { id: 'measured', class: 'measured-panel' },
      el('summary', {}, 'Compare with a measured run'),
      el(
        'p',
        { class: 'note' },
        'Type what a run measured next to each line of the checklist, or paste or drop the JSON that tools/measure/measure.py writes. Each line then shows measured − predicted. The allocator’s peak does not include the CUDA context and NCCL buffers (the allowances), so the total compares it with the total less those.',
      ),
      this.#text,
      el('div', { class: 'importer-actions' }, apply, file, clear),
      this.#message,
      this.#configNotice,
      this.#notPredicted,
    );
    this.element.addEventListener('toggle', () => this.#refresh());
  }

  /** After every ledger: the column appears while the panel is open. */
  show(ledger: Ledger, config: Config, unit: Unit, ledgerElement: HTMLElement): void {
    this.#ledger = ledger;
    this.#config = config;
    this.#table = ledgerElement.querySelector('table') ?? undefined;
    if (unit !== this.#unit) {
      this.#unit = unit;
      this.#rewriteInputs();
    }
    this.#refresh();
  }

  /** The engine's lines for the configuration shown, only while the column is: a closed panel costs nothing. */
  #refresh(): void {
    this.#predicted = new Map();
    if (this.element.open && this.#config) {
      for (const line of this.#engine.measurableLines(this.#config)) this.#predicted.set(line.id, line.bytes);
      this.#showConfigDifference(this.#config);
      this.#showUnpredicted();
    }
    this.#render();
  }

  #render(): void {
    const table = this.#table;
    const ledger = this.#ledger;
    if (!table || !ledger || !table.isConnected || !this.element.open) {
      this.#detach();
      return;
    }
    this.#header.textContent = `Measured (${UNIT_LABEL[this.#unit]}) · difference`;
    const headRow = table.querySelector('thead tr');
    if (headRow && this.#header.parentNode !== headRow) headRow.appendChild(this.#header);
    const colgroup = table.querySelector('colgroup');
    if (colgroup && this.#column.parentNode !== colgroup) colgroup.appendChild(this.#column);
    for (const tr of table.querySelectorAll<HTMLTableRowElement>('tbody tr[data-line]')) {
      const line = ledger.lines.find((l) => l.id === tr.getAttribute('data-line'));
      if (!line) continue;
      const cell = this.#cell(line.id, line.label);
      if (cell.td.parentNode !== tr) tr.appendChild(cell.td);
      this.#update(
        cell,
        line.label,
        line.id,
        this.#predicted.get(line.id),
        line.bytes,
        'during forward and backward, where a run measures it',
      );
    }
    for (const tr of table.querySelectorAll<HTMLTableRowElement>('tfoot tr[data-summary]')) {
      const id = tr.getAttribute('data-summary') ?? '';
      if (id === TOTAL) {
        const cell = this.#cell(TOTAL, 'Total');
        if (cell.td.parentNode !== tr) tr.appendChild(cell.td);
        const allowanceBytes = ledger.lines.filter((l: Line) => l.origin === 'allowance').reduce((sum, l) => sum + l.bytes, 0);
        this.#update(
          cell,
          'Total',
          TOTAL,
          ledger.totalBytes - allowanceBytes,
          Number.NaN,
          'the total less the allowances, which the allocator does not see',
        );
      } else {
        let spacer = this.#spacers.get(id);
        if (!spacer) this.#spacers.set(id, (spacer = el('td', { class: 'measured' })));
        if (spacer.parentNode !== tr) tr.appendChild(spacer);
      }
    }
  }

  #detach(): void {
    for (const node of [this.#header, this.#column, ...[...this.#cells.values()].map((c) => c.td), ...this.#spacers.values()])
      node.remove();
  }

  #cell(id: string, label: string): Cell {
    let cell = this.#cells.get(id);
    if (cell) return cell;
    const input = el('input', {
      id: `measured-line-${id}`,
      type: 'text',
      inputmode: 'decimal',
      autocomplete: 'off',
      spellcheck: 'false',
      class: 'measured-input',
    });
    cell = {
      td: el('td', { class: 'measured' }),
      input,
      difference: el('span', { class: 'measured-diff' }),
      reference: el('span', { class: 'measured-ref' }),
      error: el('span', { class: 'measured-error', role: 'alert' }),
    };
    input.value = this.#entries.get(id)?.text ?? '';
    cell.td.append(input, cell.difference, cell.reference, cell.error);
    input.addEventListener('input', () => {
      this.#entries.set(id, parseAmount(input.value, label, this.#unit));
      this.#render();
    });
    this.#cells.set(id, cell);
    return cell;
  }

  /** `predicted`: what the measurement is compared with; `shownBytes`: the checklist's own value. */
  #update(cell: Cell, label: string, id: string, predicted: number | undefined, shownBytes: number, reference: string): void {
    const entry = this.#entries.get(id);
    cell.input.setAttribute('aria-label', `Measured ${label} (${UNIT_LABEL[this.#unit]})`);
    cell.input.classList.toggle('invalid', entry?.error !== undefined);
    cell.error.textContent = entry?.error ?? '';
    cell.reference.textContent =
      predicted !== undefined && predicted !== shownBytes
        ? `vs ${formatBytes(predicted, this.#unit)} ${UNIT_LABEL[this.#unit]}: ${reference}`
        : '';
    if (entry?.bytes === undefined || predicted === undefined) {
      cell.difference.textContent = '';
      cell.difference.className = 'measured-diff';
      delete cell.difference.dataset.diffBytes;
      delete cell.difference.dataset.diffPercent;
      return;
    }
    const difference = entry.bytes - predicted;
    const fraction = predicted !== 0 ? difference / predicted : difference === 0 ? 0 : undefined;
    const share = fraction === undefined ? 'not predicted' : signed(fraction, `${groupedDecimal(Math.abs(fraction) * 100, 1, 1)}%`);
    cell.difference.textContent = `${signed(difference, formatBytes(Math.abs(difference), this.#unit))} ${UNIT_LABEL[this.#unit]} (${share})`;
    const size = fraction === undefined ? Infinity : Math.abs(fraction);
    cell.difference.className = `measured-diff ${size < GOOD ? 'diff-good' : size < FAIR ? 'diff-fair' : 'diff-poor'}`;
    cell.difference.dataset.diffBytes = String(difference);
    cell.difference.dataset.diffPercent = fraction === undefined ? '' : String(fraction * 100);
  }

  /** A new unit: the values keep their bytes and are shown in it. */
  #rewriteInputs(): void {
    for (const [id, entry] of this.#entries) {
      if (entry.bytes === undefined || entry.error !== undefined) continue;
      const text = inputText(entry.bytes / UNIT_BYTES[this.#unit]);
      this.#entries.set(id, { text, bytes: entry.bytes });
      const cell = this.#cells.get(id);
      if (cell) cell.input.value = text;
    }
  }

  // The file through the engine's reader (the CLI's compare-measured's), in the on-demand module.
  #applyFile(json: string): void {
    this.#message.className = 'message';
    this.#message.dataset.state = 'loading';
    replaceChildren(this.#message, el('p', {}, 'Reading…'));
    readMeasured(json)
      .then((file) => this.#showFile(file))
      .catch((error: unknown) =>
        this.#showRefusal(error instanceof MembudgetError ? error.problems.map((p) => p.message) : [String(error)]),
      );
  }

  #showRefusal(problems: string[]): void {
    this.#message.className = 'message error';
    this.#message.dataset.state = 'error';
    replaceChildren(this.#message, ...problems.map((p) => el('p', {}, `Not read: ${p}`)));
  }

  #showFile(file: MeasuredFileRead): void {
    this.#entries.clear();
    for (const cell of this.#cells.values()) cell.input.value = '';
    for (const [id, bytes] of file.lines) this.#entries.set(id, { text: '', bytes });
    if (file.peakAllocatedBytes !== undefined) this.#entries.set(TOTAL, { text: '', bytes: file.peakAllocatedBytes });
    this.#rewriteInputs();
    const problems = file.configProblems.map((p) => p.message);
    this.#fileConfig = problems.length === 0 ? file.config : undefined;
    this.#message.className = problems.length > 0 ? 'message error' : 'message';
    this.#message.dataset.state = 'read';
    replaceChildren(
      this.#message,
      el(
        'p',
        {},
        `Read ${file.lines.size} measured line${file.lines.size === 1 ? '' : 's'}${file.peakAllocatedBytes !== undefined ? ' and the peak allocated' : ''}${file.device ? ` (${file.device})` : ''}.`,
      ),
      ...problems.map((p) => el('p', {}, `Its configuration cannot be loaded: ${p}`)),
    );
    this.element.open = true; // its toggle event refreshes too; this shows the file at once
    this.#refresh();
  }

  #showConfigDifference(config: Config): void {
    if (!this.#fileConfig) {
      this.#configNotice.hidden = true;
      return;
    }
    const page = this.#engine.fieldTexts(config);
    const file = this.#engine.fieldTexts(this.#fileConfig);
    // The preset's name is a label: the fields it sets are compared one by one.
    const differing = (Object.keys(file) as (keyof Config)[]).filter((key) => key !== 'model' && file[key] !== page[key]);
    this.#configNotice.hidden = differing.length === 0;
    const listed = differing.slice(0, SHOWN_DIFFERENCES).map((key) => `${key} ${page[key]} → ${file[key]}`);
    if (differing.length > SHOWN_DIFFERENCES) listed.push(`${differing.length - SHOWN_DIFFERENCES} more`);
    this.#configText.textContent = `The file measured another configuration (${listed.join(', ')}): the differences below compare it with this page’s.`;
  }

  #showUnpredicted(): void {
    const ids = new Set<string>(this.#ledger?.lines.map((l) => l.id) ?? []);
    const extra = [...this.#entries.keys()].filter((id) => id !== TOTAL && !ids.has(id));
    this.#notPredicted.textContent = extra.length > 0 ? `Measured, not a line of this checklist: ${extra.join(', ')}` : '';
  }

  #clear(): void {
    this.#entries.clear();
    this.#fileConfig = undefined;
    this.#text.value = '';
    for (const cell of this.#cells.values()) cell.input.value = '';
    replaceChildren(this.#message);
    this.#notPredicted.textContent = '';
    this.#configNotice.hidden = true;
    this.#refresh();
  }
}
