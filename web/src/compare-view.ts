// Every method's ledger for the same configuration, side by side, with why each differs from the
// configured method: the CLI's `membudget compare`. Computed only while the view is open, by the on-demand
// module (the page's own module leaves the other methods' comparison out, issue 31), which the first opening
// loads; from then on each configuration is drawn as it comes.
import { loadPlannerEngine, MembudgetError, type Config, type Engine, type MethodColumn } from './engine';
import { el, replaceChildren } from './dom';
import { formatBytes, UNIT_LABEL, type Unit } from './format';

export class CompareView {
  readonly element: HTMLDetailsElement;
  readonly #body = el('div', { class: 'compare-body' });
  #planner: Engine | undefined;
  #pending: { config: Config; unit: Unit } | undefined;
  #ticket = 0;

  constructor() {
    this.element = el('details', { id: 'compare', class: 'compare' }, el('summary', {}, 'Compare methods'), this.#body);
    this.element.addEventListener('toggle', () => this.#render());
  }

  show(config: Config, unit: Unit): void {
    this.#pending = { config, unit };
    this.#render();
  }

  #render(): void {
    const ticket = ++this.#ticket;
    if (!this.element.open || !this.#pending) {
      replaceChildren(this.#body);
      return;
    }
    const pending = this.#pending;
    if (this.#planner) {
      this.#draw(this.#planner, pending.config, pending.unit);
      return;
    }
    this.#body.dataset.state = 'loading';
    replaceChildren(this.#body, el('p', { class: 'note' }, 'Loading the methods…'));
    loadPlannerEngine().then(
      (planner) => {
        this.#planner = planner;
        if (ticket === this.#ticket) this.#render();
      },
      (error: unknown) => {
        if (ticket !== this.#ticket) return;
        this.#body.dataset.state = 'error';
        const problems = error instanceof MembudgetError ? error.problems.map((p) => p.message) : [String(error)];
        replaceChildren(this.#body, el('p', { class: 'error' }, `The methods could not be loaded: ${problems.join('; ')}`));
      },
    );
  }

  #draw(planner: Engine, config: Config, unit: Unit): void {
    delete this.#body.dataset.state;
    const columns = planner.compare(config);
    const base = columns.find((c) => c.method === config.method && c.errors.length === 0);
    if (!base) {
      replaceChildren(this.#body, el('p', {}, 'Fix the configuration to compare methods.'));
      return;
    }
    // Rows by line id: the configured method's lines, then any a source alone has (membudget's workspaces).
    const lineOf = (column: MethodColumn, id: string) => column.lines.find((l) => l.id === id);
    const rows = [...base.lines];
    for (const column of columns) for (const line of column.lines) if (!rows.some((r) => r.id === line.id)) rows.push(line);
    const cell = (column: MethodColumn, id: string) => {
      const line = column.errors.length > 0 ? undefined : lineOf(column, id);
      if (!line) return el('td', { class: 'value' }, '—');
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
    const body = rows.map((line) => el('tr', {}, el('th', { scope: 'row' }, line.label), ...columns.map((c) => cell(c, line.id))));
    const summary = (label: string, value: (c: MethodColumn) => string) =>
      el(
        'tr',
        { class: 'summary' },
        el('th', { scope: 'row' }, label),
        ...columns.map((c) => el('td', { class: 'value' }, c.errors.length ? '—' : value(c))),
      );
    const reasons: HTMLElement[] = [];
    for (const column of columns) {
      if (column === base || column.errors.length > 0) continue;
      column.lines.forEach((line) => {
        const baseBytes = lineOf(base, line.id)?.bytes ?? 0;
        const delta = line.bytes - baseBytes;
        if (line.origin === 'allowance' || Math.abs(delta) < 0.005 * Math.max(1, baseBytes)) return;
        const who = line.origin === 'membudget' ? 'membudget' : column.method;
        reasons.push(
          el(
            'li',
            {},
            el('strong', {}, `${column.method} · ${line.label} ${delta > 0 ? '+' : ''}${formatBytes(delta, unit)} ${UNIT_LABEL[unit]}: `),
            planner.differenceReason(who, line.id),
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
          summary('Total', (c) => formatBytes(c.totalBytes, unit)),
          summary('Source’s own figure', (c) => formatBytes(c.sourceBytes, unit)),
          summary('Verdict', (c) => c.verdict.replace(/_/g, ' ')),
        ),
      ),
      el(
        'p',
        { class: 'note' },
        'Values in brackets are membudget’s estimate where the source has no formula; buffers and the CUDA context are allowances shared by all.',
      ),
      el('h2', { class: 'subhead' }, `Why they differ from ${config.method}`),
      el('ul', { class: 'reasons' }, ...reasons),
    );
  }
}
