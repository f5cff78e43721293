// "What to change" for a configuration that does not fit (`membudget advise`): the changes that make it fit, each
// with its total, what it saves and costs, and a button that applies it.
import type { Advice, Config, Ledger } from './engine';
import { loadPlannerEngine, MembudgetError } from './engine';
import { el, replaceChildren } from './dom';
import { formatBytes, UNIT_LABEL, type Unit } from './format';

/**
 * How long the advice waits after the change that asked for it. The advice evaluates dozens of changed
 * configurations in the planner's module (10–20 ms on a 2-vCPU machine) and, the first time, loads that module
 * (715 KB of wasm, compiled on the same cores): run inside the change, both delayed the change's own frame. Like the
 * link's write (url-state.ts), it runs at most once per this interval, for the configuration shown then.
 */
const ADVICE_DELAY_MS = 120;

/** What to change when the configuration does not fit: each change, its total, what it saves and costs. */
// The advice comes from the planner's module, loaded the first time a configuration does not fit; until it
// answers, the section says so (data-state="loading", or "updating" over the list of the configuration before),
// and an answer for an older configuration is dropped.
export class AdviceView {
  readonly element = el('section', { id: 'advice', class: 'advice', hidden: true });
  readonly #onApply: (query: string) => void;
  readonly #onCount: (fitting: number) => void;
  #generation = 0;
  /** The configuration the advice is to be computed for, once the timer fires. */
  #pending: { generation: number; config: Config; unit: Unit } | undefined;
  #timer: number | undefined;

  /** `onCount`: how many of the changes make it fit (the verdict links to them), 0 while none is known. */
  constructor(onApply: (query: string) => void, onCount: (fitting: number) => void = () => {}) {
    this.#onApply = onApply;
    this.#onCount = onCount;
  }

  show(ledger: Ledger | undefined, config: Config, unit: Unit): void {
    const generation = ++this.#generation;
    this.#onCount(0);
    if (!ledger || ledger.verdict === 'fits') {
      this.#pending = undefined;
      this.element.hidden = true;
      delete this.element.dataset.state;
      this.element.removeAttribute('aria-busy');
      replaceChildren(this.element);
      return;
    }
    this.element.hidden = false;
    this.element.setAttribute('aria-busy', 'true');
    if (this.element.dataset.state === 'ready' || this.element.dataset.state === 'updating') {
      // The list stays, greyed by the stylesheet, until the advice for this configuration replaces it.
      this.element.dataset.state = 'updating';
    } else {
      this.element.dataset.state = 'loading';
      replaceChildren(this.element, el('h2', {}, 'What to change'), el('p', {}, 'Looking for changes that make it fit…'));
    }
    this.#pending = { generation, config, unit };
    if (this.#timer === undefined) this.#timer = window.setTimeout(() => this.#compute(), ADVICE_DELAY_MS);
  }

  #compute(): void {
    this.#timer = undefined;
    const pending = this.#pending; // the last configuration shown, or none once it fits
    if (!pending) return;
    this.#pending = undefined;
    loadPlannerEngine()
      .then((tools) => {
        if (pending.generation === this.#generation) this.#render(tools.advise(pending.config), pending.unit);
      })
      .catch((error: unknown) => {
        if (pending.generation !== this.#generation) return;
        this.element.dataset.state = 'error';
        this.element.removeAttribute('aria-busy');
        const message = error instanceof MembudgetError ? error.problems.map((p) => p.message).join('; ') : String(error);
        replaceChildren(this.element, el('h2', {}, 'What to change'), el('p', {}, `The advice could not be computed: ${message}`));
      });
  }

  #render(advice: Advice[], unit: Unit): void {
    this.element.dataset.state = 'ready';
    this.element.removeAttribute('aria-busy');
    this.#onCount(advice.filter((a) => a.verdict === 'fits').length);
    if (advice.length === 0) {
      replaceChildren(
        this.element,
        el('h2', {}, 'What to change'),
        el('p', {}, 'No change or combination of zero, ckpt, sp, mb, tp, pp, cp, offload or fine-tuning lowers the peak by 1% or more.'),
      );
      return;
    }
    replaceChildren(
      this.element,
      el('h2', {}, 'What to change'),
      el(
        'ul',
        { class: 'advice-list' },
        ...advice.slice(0, 8).map((a) => {
          const apply = el('button', { type: 'button', class: 'advice-apply', 'data-query': a.query }, 'Apply');
          apply.addEventListener('click', () => this.#onApply(a.query));
          return el(
            'li',
            { 'data-verdict': a.verdict, 'data-total-bytes': String(a.totalBytes), 'data-saved-bytes': String(a.savedBytes) },
            el('code', {}, a.change),
            a.keepsTask ? '' : el('span', { class: 'task-change' }, ' (changes what is trained)'),
            ` → ${formatBytes(a.totalBytes, unit)} ${UNIT_LABEL[unit]} (saves ${formatBytes(a.savedBytes, unit)}), ${a.verdict === 'fits' ? 'fits' : a.verdict === 'tight' ? 'tight' : 'still does not fit'}. `,
            el('span', { class: 'note' }, `Cost: ${a.cost}.`),
            ' ',
            apply,
          );
        }),
      ),
    );
  }
}
