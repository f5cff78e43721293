// Every method's ledger for the same configuration, side by side, with why each differs from the
// configured method: the CLI's `membudget compare`. Computed only while the view is open.
import type { Config, Engine, MethodColumn } from './engine';
import { el, replaceChildren } from './dom';
import { formatBytes, UNIT_LABEL, type Unit } from './format';

export class CompareView {
  readonly element: HTMLDetailsElement;
  readonly #body = el('div', { class: 'compare-body' });
  readonly #engine: Engine;
  #pending: { config: Config; unit: Unit } | undefined;

  constructor(engine: Engine) {
    this.#engine = engine;
    this.element = el('details', { id: 'compare', class: 'compare' }, el('summary', {}, 'Compare methods'), this.#body);
    this.element.addEventListener('toggle', () => this.#render());
  }

  show(config: Config, unit: Unit): void {
    this.#pending = { config, unit };
    this.#render();
  }

  #render(): void {
    if (!this.element.open || !this.#pending) {
      replaceChildren(this.#body);
      return;
    }
    const { config, unit } = this.#pending;
    const columns = this.#engine.compare(config);
    const base = columns.find((c) => c.method === config.method && c.result.errors.length === 0);
    if (!base) {
      replaceChildren(this.#body, el('p', {}, 'Fix the configuration to compare methods.'));
      return;
    }
    const cell = (column: MethodColumn, index: number) => {
      if (column.result.errors.length > 0) return el('td', { class: 'value' }, '—');
      const line = column.result.lines[index];
      const own = line.origin === column.method || line.origin === 'allowance';
      return el(
        'td',
        {
          class: `value${own ? '' : ' borrowed'}`,
          'data-method': column.method,
          'data-line': line.id,
          'data-bytes': String(line.bytes),
          title: own ? line.note : `Not modelled by ${column.method}: membudget's estimate`,
        },
        own ? formatBytes(line.bytes, unit) : `(${formatBytes(line.bytes, unit)})`,
      );
    };
    const head = el(
      'tr',
      {},
      el('th', { scope: 'col' }, `${UNIT_LABEL[unit]}`),
      ...columns.map((c) => el('th', { scope: 'col', class: `value${c.method === config.method ? ' current' : ''}` }, c.method)),
    );
    const body = base.result.lines.map((line, index) =>
      el('tr', {}, el('th', { scope: 'row' }, line.label), ...columns.map((c) => cell(c, index))),
    );
    const summary = (label: string, value: (c: MethodColumn) => string) =>
      el(
        'tr',
        { class: 'summary' },
        el('th', { scope: 'row' }, label),
        ...columns.map((c) => el('td', { class: 'value' }, c.result.errors.length ? '—' : value(c))),
      );
    const reasons: HTMLElement[] = [];
    for (const column of columns) {
      if (column === base || column.result.errors.length > 0) continue;
      column.result.lines.forEach((line, index) => {
        const delta = line.bytes - base.result.lines[index].bytes;
        if (line.origin === 'allowance' || Math.abs(delta) < 0.005 * Math.max(1, base.result.lines[index].bytes)) return;
        const who = line.origin === 'membudget' ? 'membudget' : column.method;
        reasons.push(
          el(
            'li',
            {},
            el('strong', {}, `${column.method} · ${line.label} ${delta > 0 ? '+' : ''}${formatBytes(delta, unit)} ${UNIT_LABEL[unit]}: `),
            this.#engine.differenceReason(who, line.id),
          ),
        );
      });
    }
    replaceChildren(
      this.#body,
      el(
        'table',
        { class: 'ledger compare-table' },
        el('thead', {}, head),
        el(
          'tbody',
          {},
          ...body,
          summary('Total', (c) => formatBytes(c.result.totalBytes, unit)),
          summary('Source’s own figure', (c) => formatBytes(c.sourceBytes, unit)),
          summary('Verdict', (c) => c.result.verdict.replace(/_/g, ' ')),
        ),
      ),
      el(
        'p',
        { class: 'note' },
        'Values in brackets are membudget’s estimate where the source has no formula; buffers and the CUDA context are allowances shared by all.',
      ),
      el('h3', {}, `Why they differ from ${config.method}`),
      el('ul', { class: 'reasons' }, ...reasons),
    );
  }
}
