// The importer: paste or drop what the user already has (docs/import.md), a Megatron-LM script, a torchtitan TOML,
// a torchtune YAML or tune run command, a DeepSpeed JSON, a config.json, a vllm serve, an SGLang launch_server or a
// TensorRT-LLM trtllm-serve command. The import applies all of its keys or none, and lists what it set and what it
// could not map. Its formats and their names are the engine's (Engine.formats); the import itself runs in the
// on-demand module, loaded on the first import.
// A model's Hub id (or its URL), typed in its own field or pasted in place of a file, fetches its config.json from
// huggingface.co (hub.ts) and imports it the same way.
import { MembudgetError, type Config, type Engine, type Format, type ImportFormat, type Problem } from './engine';
import { blobUrl, HubError, looksLikeHubRef, parseHubRef, type HubFile } from './hub';
import { importAnyConfig, tooLarge } from './tools';
import { cappedList, el, replaceChildren } from './dom';
import { LISTED_ITEMS } from './limits';

/** Where an imported model came from on the Hub: the repository, the file and the commit (the link keeps them). */
export interface HubSource {
  id: string;
  file: string;
  /** A commit id when the Hub said which; else the revision asked for. */
  revision: string;
  pinned: boolean;
}

export class ImportView {
  readonly element: HTMLDetailsElement;
  readonly #formats: readonly Format[];
  readonly #current: () => Config;
  readonly #onImported: (config: Config, assumed: Problem[], hub: HubSource | undefined) => void;
  readonly #engine: Engine;
  readonly #text = el('textarea', {
    id: 'import-text',
    // Not kept in the page's history entry: the browser would copy a pasted file on every link update.
    autocomplete: 'off',
    rows: 6,
    spellcheck: 'false',
    placeholder:
      'Paste a Megatron-LM launch script, a torchtitan TOML, a torchtune YAML or tune run command, a DeepSpeed JSON, a config.json, a vllm serve or an SGLang launch_server command, or a TensorRT-LLM trtllm-serve or trtllm-bench command with its extra options YAML',
    'aria-label': 'Configuration to import',
  });
  readonly #format: HTMLSelectElement;
  readonly #message = el('div', { id: 'import-message', class: 'message', 'aria-live': 'polite' });
  readonly #hub = el('input', {
    id: 'hub-id',
    type: 'text',
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: 'Qwen/Qwen3-30B-A3B, or its huggingface.co link',
    'aria-label': 'Hugging Face model id or link',
    'aria-describedby': 'hub-note',
  });
  /** The fetch under way, which Cancel (or a new import) stops. */
  #fetching: AbortController | undefined;

  /**
   * `current`: the configuration an import applies over; `onImported`: the configuration it gives, what the file
   * does not say (computed with the fields' values, marked as needing the user's input), and the Hub file it came
   * from, if fetched.
   */
  constructor(
    engine: Engine,
    current: () => Config,
    onImported: (config: Config, assumed: Problem[], hub: HubSource | undefined) => void,
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
    // Text that is a Hub id or link, not a file, is fetched as the Hub field would.
    button.addEventListener('click', () =>
      looksLikeHubRef(this.#text.value) ? this.#fetchHub(this.#text.value) : this.#apply(this.#text.value),
    );
    const fetchButton = el('button', { id: 'hub-fetch', type: 'button' }, 'Fetch config.json');
    fetchButton.addEventListener('click', () => this.#fetchHub(this.#hub.value));
    this.#hub.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      this.#fetchHub(this.#hub.value);
    });
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
      el(
        'div',
        { class: 'hub-row' },
        el('label', { for: 'hub-id' }, 'A model on the Hugging Face Hub:'),
        this.#hub,
        fetchButton,
        el(
          'p',
          { id: 'hub-note', class: 'hub-note' },
          'Fetches its config.json from huggingface.co, without your sign-in; nothing else leaves the page.',
        ),
      ),
      this.#text,
      el('div', { class: 'importer-actions' }, this.#format, button, file),
      this.#message,
    );
  }

  /**
   * A Hub file a link names without the model's fields: put in the Hub field with the importer open, to fetch at a
   * click (the page asks the network nothing unasked).
   */
  offerHub(input: string): void {
    this.#hub.value = input;
    this.element.open = true;
    this.#message.className = 'message warning';
    this.#message.dataset.state = 'offered';
    replaceChildren(
      this.#message,
      el('p', {}, `The link names ${input} on the Hub, but not its model's fields: press “Fetch config.json” to load it.`),
    );
  }

  /** The Hub's config.json of `input` (an id or a link), fetched and imported; a fetch under way is stopped first. */
  #fetchHub(input: string): void {
    this.#fetching?.abort();
    let ref;
    try {
      ref = parseHubRef(input);
    } catch (error) {
      return this.#refuse([{ field: 'hub', message: (error as Error).message }], 'refused');
    }
    const fetching = new AbortController();
    this.#fetching = fetching;
    const message = this.#message;
    message.className = 'message';
    message.dataset.state = 'fetching';
    delete message.dataset.hub;
    const cancel = el('button', { id: 'hub-cancel', type: 'button' }, 'Cancel');
    cancel.addEventListener('click', () => fetching.abort());
    replaceChildren(message, el('p', {}, `Fetching ${ref.file} of ${ref.id} at ${ref.revision} from huggingface.co… `, cancel));
    import('./hub-fetch')
      .then(({ fetchHubConfig }) => fetchHubConfig(ref, fetching.signal))
      .then((file) => {
        if (this.#fetching !== fetching) return; // another import started since
        this.#fetching = undefined;
        this.#apply(file.text, 'hf', file);
      })
      .catch((error: unknown) => {
        if (this.#fetching !== fetching) return;
        this.#fetching = undefined;
        if (error instanceof HubError) this.#refuse([{ field: 'hub', message: error.message }], error.kind);
        else this.#refuse([{ field: 'hub', message: String(error) }]);
      });
  }

  #apply(input: string, format: ImportFormat | '' = this.#format.value as ImportFormat | '', hubFile?: HubFile): void {
    if (!hubFile) {
      this.#fetching?.abort();
      this.#fetching = undefined;
    }
    const message = this.#message;
    message.className = 'message';
    message.dataset.state = 'loading';
    delete message.dataset.hub;
    replaceChildren(message, el('p', {}, 'Importing…'));
    const previous = this.#current();
    const hub: HubSource | undefined = hubFile && {
      id: hubFile.ref.id,
      file: hubFile.ref.file,
      revision: hubFile.commit,
      pinned: hubFile.pinned,
    };
    importAnyConfig(previous, input, format)
      .then((imported) => {
        // A value the configuration cannot take refuses the whole import, as `membudget import` does (exit 2).
        if (imported.problems.length > 0) return this.#refuse(imported.problems);
        message.dataset.state = 'imported';
        message.dataset.format = imported.format;
        if (hub) message.dataset.hub = hub.id;
        const label = this.#formats.find((f) => f.id === imported.format)?.label ?? imported.format;
        const list = (id: string, title: string, items: string[], total = items.length) =>
          items.length === 0 ? [] : [el('p', {}, title), listed(id, items, total)];
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
          ...(hub ? [hubFetched(hub)] : []),
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
            listed(
              'import-set',
              imported.assignments.map((a) => `${a.key} = ${a.text}`),
            ),
          ),
          ...list(
            'import-unmapped',
            'Not mapped (changes memory, but membudget could not read it):',
            imported.unmapped.map((u) => `${u.key}${u.value ? ` = ${u.value}` : ''}: ${u.reason}`),
            imported.unmappedTotal,
          ),
          ...list('import-warnings', 'Warnings:', imported.warnings, imported.warningsTotal),
        );
        this.#onImported(
          imported.config,
          imported.errors.length === 0 ? imported.assumed : [],
          imported.errors.length === 0 ? hub : undefined,
        );
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
  #refuse(problems: Problem[], hubKind?: string): void {
    this.#message.className = 'message error';
    this.#message.dataset.state = 'error';
    if (hubKind) this.#message.dataset.hubError = hubKind;
    else delete this.#message.dataset.hubError;
    replaceChildren(this.#message, ...problems.map((p) => el('p', {}, p.message)));
  }
}

/** A report's list: LISTED_ITEMS of them, and how many more (`membudget import FILE` lists every one). */
function listed(id: string, items: readonly string[], total = items.length): HTMLUListElement {
  const list = cappedList(id, items, LISTED_ITEMS, total);
  const more = list.querySelector('li.more');
  if (more) more.textContent += ' (membudget import FILE lists every one)';
  return list;
}

/** The line that says which file was fetched, with a link to it on the Hub at the commit it came from. */
function hubFetched(hub: HubSource): HTMLElement {
  return el(
    'p',
    { id: 'hub-fetched' },
    `Fetched ${hub.file} of ${hub.id} from huggingface.co at `,
    hubFileLink(hub),
    hub.pinned ? '.' : ' (the Hub sent no commit id: the link keeps the revision, not a commit).',
  );
}

/** A link to the file on the Hub at its commit (a navigation, which the page's connect-src does not govern). */
export function hubFileLink(hub: HubSource): HTMLAnchorElement {
  return el(
    'a',
    { href: blobUrl({ id: hub.id, revision: hub.revision, file: hub.file }), target: '_blank', rel: 'noopener noreferrer' },
    hub.pinned ? `commit ${hub.revision.slice(0, 7)}` : `revision ${hub.revision}`,
  );
}
