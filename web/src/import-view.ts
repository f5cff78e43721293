// The importer: paste or drop what the user already has (docs/import.md), a Megatron-LM script, a torchtitan TOML,
// a torchtune YAML or tune run command, a DeepSpeed JSON, a config.json or a vllm serve command. The import
// applies all of its keys or none, and lists what it set and what it could not map. Its formats and their names
// are the engine's (Engine.formats); the import itself runs in the on-demand module, loaded on the first import.
import { MembudgetError, type Config, type Engine, type Format, type ImportFormat, type Problem } from './engine';
import { importAnyConfig, tooLarge } from './tools';
import { el, replaceChildren } from './dom';

export class ImportView {
  readonly element: HTMLDetailsElement;
  readonly #formats: readonly Format[];
  readonly #current: () => Config;
  readonly #onImported: (config: Config, assumed: Problem[]) => void;
  readonly #engine: Engine;
  readonly #text = el('textarea', {
    id: 'import-text',
    rows: 6,
    spellcheck: 'false',
    placeholder:
      'Paste a Megatron-LM launch script, a torchtitan TOML, a torchtune YAML or tune run command, a DeepSpeed JSON, a config.json or a vllm serve command',
    'aria-label': 'Configuration to import',
  });
  readonly #format: HTMLSelectElement;
  readonly #message = el('div', { id: 'import-message', class: 'message', 'aria-live': 'polite' });

  /**
   * `current`: the configuration an import applies over; `onImported`: the configuration it gives, and what the file
   * does not say (computed with the fields' values, marked as needing the user's input).
   */
  constructor(
    engine: Engine,
    current: () => Config,
    onImported: (config: Config, assumed: Problem[]) => void,
    first: HTMLElement | null = null,
  ) {
    this.#engine = engine;
    const formats = engine.formats;
    this.#formats = formats;
    this.#current = current;
    this.#onImported = onImported;
    this.#format = el(
      'select',
      { id: 'import-format', 'aria-label': 'Its format' },
      el('option', { value: '' }, 'Format: detect from the text'),
      ...formats.map((f) => el('option', { value: f.id }, f.label)),
    );
    const file = el('input', { id: 'import-file', type: 'file', 'aria-label': 'Configuration file' });
    const button = el('button', { id: 'import-apply', type: 'button' }, 'Import');
    button.addEventListener('click', () => this.#apply(this.#text.value));
    file.addEventListener('change', () => {
      const chosen = file.files?.[0];
      if (chosen) this.#applyFile(chosen);
    });
    this.#text.addEventListener('drop', (event) => {
      const dropped = event.dataTransfer?.files?.[0];
      if (!dropped) return;
      event.preventDefault();
      this.#applyFile(dropped);
    });
    this.element = el(
      'details',
      { class: 'importer', id: 'importer' },
      el('summary', {}, 'Import your launch file (Megatron-LM, torchtitan, torchtune, DeepSpeed, config.json, vLLM) or try an example'),
      first,
      this.#text,
      el('div', { class: 'importer-actions' }, this.#format, button, file),
      this.#message,
    );
  }

  #apply(input: string): void {
    const message = this.#message;
    message.className = 'message';
    message.dataset.state = 'loading';
    replaceChildren(message, el('p', {}, 'Importing…'));
    const previous = this.#current();
    importAnyConfig(previous, input, this.#format.value as ImportFormat | '')
      .then((imported) => {
        message.dataset.state = 'imported';
        message.dataset.format = imported.format;
        const label = this.#formats.find((f) => f.id === imported.format)?.label ?? imported.format;
        const list = (id: string, title: string, items: string[]) =>
          items.length === 0 ? [] : [el('p', {}, title), el('ul', { id }, ...items.map((item) => el('li', {}, item)))];
        // What changed against the configuration before the import, field by field; the file's own settings
        // stay one click away.
        const before = this.#engine.fieldTexts(previous);
        const after = imported.errors.length === 0 ? this.#engine.fieldTexts(imported.config) : before;
        const changed = this.#engine.fields
          .filter((f) => before[f.key as keyof Config] !== after[f.key as keyof Config])
          .map((f) => `${f.key}: ${before[f.key as keyof Config] || '(none)'} → ${after[f.key as keyof Config] || '(none)'}`);
        const values = this.#engine.fieldTexts(imported.config);
        replaceChildren(
          message,
          el(
            'p',
            {},
            `Imported a ${label}: ${changed.length} field${changed.length === 1 ? '' : 's'} changed (the GPU and the method kept).`,
          ),
          ...(imported.modelKept ? [el('p', { id: 'import-model-kept' }, `The file names no model: ${imported.modelKept} is kept.`)] : []),
          ...list(
            'import-assumed',
            'Needs your input (the file does not say; computed with the value shown):',
            imported.assumed.map((a) => `${a.field} = ${values[a.field as keyof Config] ?? ''}: ${a.message}`),
          ),
          ...list('import-changed', 'Changed:', changed),
          el(
            'details',
            { class: 'import-set' },
            el('summary', {}, `The file's ${imported.assignments.length} settings`),
            el('ul', { id: 'import-set' }, ...imported.assignments.map((a) => el('li', {}, `${a.key} = ${a.text}`))),
          ),
          ...list(
            'import-unmapped',
            'Not mapped (changes memory, but membudget could not read it):',
            imported.unmapped.map((u) => `${u.key}${u.value ? ` = ${u.value}` : ''}: ${u.reason}`),
          ),
          ...list('import-warnings', 'Warnings:', imported.warnings),
          ...list(
            'import-problems',
            'Refused:',
            imported.problems.map((p) => p.message),
          ),
        );
        this.#onImported(imported.config, imported.errors.length === 0 ? imported.assumed : []);
      })
      .catch((error: unknown) => this.#refuse(error instanceof MembudgetError ? error.problems : [{ field: '', message: String(error) }]));
  }

  // A file is checked for size before it is read: nothing over the limit is loaded into the page.
  #applyFile(chosen: File): void {
    const refused = tooLarge(chosen.name, chosen.size);
    if (refused) return this.#refuse(refused.problems);
    void chosen.text().then((text) => this.#apply(text));
  }

  /** What stopped the import, in its message; the configuration is untouched. */
  #refuse(problems: Problem[]): void {
    this.#message.className = 'message error';
    this.#message.dataset.state = 'error';
    replaceChildren(this.#message, ...problems.map((p) => el('p', {}, p.message)));
  }
}
