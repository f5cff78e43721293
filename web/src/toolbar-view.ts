// The toolbar above the checklist: the unit toggle, the link, the Markdown, the CLI's JSON, the configuration in a
// framework's own form ("Copy as", the formats the engine writes), and the embed's link to the full calculator;
// what each did is said in a toast.
import type { Config, Engine, ImportFormat, Ledger } from './engine';
import { exportAs } from './tools';
import { el } from './dom';
import { ledgerMarkdown, type Unit } from './format';

const TOAST_MS = 2500;

/** What the toolbar reads of the page, and the one change it makes (the unit). */
export interface ToolbarHost {
  config(): Config;
  /** The ledger shown, or undefined while the configuration cannot be computed. */
  ledger(): Ledger | undefined;
  unit(): Unit;
  setUnit(unit: Unit): void;
  /** The page's link, written first if a write is pending. */
  link(): string;
}

export class ToolbarView {
  readonly element: HTMLElement;
  /** The embed's link to the full calculator (in the masthead). */
  readonly openFull = el(
    'a',
    { id: 'open-full', class: 'open-full', target: '_blank', rel: 'noopener noreferrer' },
    'Open the full calculator ↗',
  );
  /** The last "Copy as", for reading before pasting (below the results). */
  readonly exported: HTMLDetailsElement;
  readonly toast = el('div', { id: 'toast', class: 'toast', role: 'status', 'aria-live': 'polite' });
  readonly #engine: Engine;
  readonly #host: ToolbarHost;
  readonly #exportedText = el('pre', { id: 'exported', class: 'exported' });
  readonly #labels: Map<string, string>;
  readonly #copyAsFormat: HTMLSelectElement;
  #launch: ImportFormat | undefined;
  #picked = false;

  constructor(engine: Engine, host: ToolbarHost) {
    this.#engine = engine;
    this.#host = host;
    // The link is written once typing pauses: a click on "open full" right after an edit writes it first.
    this.openFull.addEventListener('click', () => void host.link());
    const writes = engine.formats.filter((f) => f.exports);
    this.#labels = new Map(writes.map((f) => [f.id, f.label]));
    const unit = el(
      'select',
      { id: 'unit', 'aria-label': 'Units' },
      el('option', { value: 'gb' }, 'GB (10⁹ B)'),
      el('option', { value: 'gib' }, 'GiB (2³⁰ B)'),
    );
    unit.value = host.unit();
    unit.addEventListener('change', () => host.setUnit(unit.value === 'gib' ? 'gib' : 'gb'));
    const copyAsFormat = el(
      'select',
      { id: 'copy-as-format', 'aria-label': 'Copy as which format' },
      ...writes.map((f) => el('option', { value: f.id }, f.label)),
    );
    this.#copyAsFormat = copyAsFormat;
    copyAsFormat.addEventListener('change', () => (this.#picked = true));
    const button = (id: string, text: string, action: () => void) => {
      const b = el('button', { id, type: 'button' }, text);
      b.addEventListener('click', action);
      return b;
    };
    this.element = el(
      'div',
      { class: 'toolbar' },
      unit,
      button('copy-link', 'Copy link', () => void this.#copy(host.link(), 'Link copied')),
      button('copy-markdown', 'Copy Markdown', () => this.#copyMarkdown()),
      button('download-json', 'Download JSON', () => void this.#downloadJson()),
      copyAsFormat,
      button('copy-as', 'Copy as', () => this.#copyAs(copyAsFormat.value as ImportFormat)),
    );
    this.exported = el(
      'details',
      { id: 'export-view', class: 'export-view' },
      el('summary', {}, 'Copied as (the last “Copy as”)'),
      this.#exportedText,
    );
  }

  /**
   * "Copy as" offers the format this configuration is launched with (`vllm serve` for inference, the framework's
   * own for training), until the user picks another; a new mode or framework offers its own again.
   */
  follow(format: ImportFormat): void {
    if (format !== this.#launch) {
      this.#launch = format;
      this.#picked = false;
    }
    if (!this.#picked && this.#labels.has(format) && this.#copyAsFormat.value !== format) this.#copyAsFormat.value = format;
  }

  /** The full calculator's link, for the embed. */
  setFullLink(href: string): void {
    this.openFull.href = href;
  }

  // The current configuration in a framework's own form, to the clipboard (the CLI's `membudget export`).
  #copyAs(format: ImportFormat): void {
    exportAs(this.#host.config(), format)
      .then((exported) => {
        this.#exportedText.textContent = exported.text;
        this.#exportedText.dataset.format = format;
        this.exported.open = true;
        const skipped = exported.notExported.length;
        void this.#copy(
          exported.text,
          `Copied as ${this.#labels.get(format) ?? format}${skipped ? ` (${skipped} setting${skipped === 1 ? '' : 's'} it cannot say: see the comments)` : ''}`,
        );
      })
      .catch((error: unknown) => this.#say(`Export failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  async #copy(text: string, done: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.#say(done);
    } catch {
      this.#say('Copy failed: the browser refused clipboard access');
    }
  }

  #copyMarkdown(): void {
    const ledger = this.#host.ledger();
    if (!ledger) return this.#say('Nothing to copy: fix the configuration first');
    const link = this.#host.link();
    void this.#copy(ledgerMarkdown(ledger, this.#host.config(), this.#host.unit(), link), 'Markdown copied');
  }

  async #downloadJson(): Promise<void> {
    // The JSON writer and the record tables it walks load with the first download, not with the page.
    const config = this.#host.config();
    const { resultJson } = await import('./result-json');
    const blob = new Blob([resultJson(this.#engine, config)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: 'membudget.json' });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    this.#say('JSON downloaded (the CLI’s eval format)');
  }

  #say(text: string): void {
    this.toast.textContent = text;
    this.toast.classList.add('visible');
    setTimeout(() => this.toast.classList.remove('visible'), TOAST_MS);
  }
}
