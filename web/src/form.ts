// The form, generated from the engine's field table: the essentials first (model, GPU, layout, batch,
// checkpointing), then the other groups collapsed; fields that do not apply to the configuration are hidden
// (MoE fields of a dense model, MLA fields without a latent, inference fields in training and back), and a
// derived value shows as a placeholder ("auto: 128") instead of 0. Each control has its unit, range, help,
// source and a place for its error or warning; numbers may be typed as people write them (8k, 70B, 80 GiB).
import type { Config, Engine, Field, FieldStates, Problem } from './engine';
import { el, replaceChildren } from './dom';
import { formatCount, groupedDecimal, type Unit } from './format';
import { FIELD_TEXT } from './generated/field-text';

const GROUP_TITLES: Record<string, string> = {
  essentials: 'Essentials',
  model: 'Model architecture',
  parallelism: 'Parallelism',
  training: 'Training',
  hardware: 'Hardware',
  inference: 'Inference (mode = inference)',
  method: 'Method',
};

/** What most people set, in the order the form shows them before anything else: the field table's essentials
 * (FieldSpec::essential), so that a field becomes one in the engine alone. */
export function essentials(fields: readonly Field[]): Field[] {
  return fields.filter((f) => f.essential > 0).sort((a, b) => a.essential - b.essential);
}

/** Whether a field applies to the configuration (hidden otherwise, unless it holds an error): the field table's
 * `applies`, asked of the engine. */
export function applies(engine: Engine, key: string, config: Config): boolean {
  return !engine.fieldStates(config).hidden.includes(key as keyof Config);
}

/**
 * A number as people type it: thousands separators (8,192), suffixes (8k, 32K, 1M tokens; 70B, 1.5T parameters;
 * 1.5e9) and, for a field in GB, a unit (80GB, 80 GiB). The canonical decimal text, or the text unchanged when it
 * is not one of these (the engine then names what is wrong).
 */
export function readNumber(text: string, field: Pick<Field, 'key' | 'unit' | 'kind'>): string {
  if (field.kind !== 'integer' && field.kind !== 'number') return text;
  const trimmed = text.trim();
  // Thousands separators only where they group by three (8,192; 1,000,000): "0,1" stays for the engine to refuse.
  if (/^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(trimmed)) return String(Number(trimmed.replace(/,/g, '')));
  const match = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([a-z]+)$/i.exec(trimmed);
  if (!match) return text;
  const value = Number(match[1]);
  const suffix = match[2]!.toLowerCase();
  // Token counts (the field table's unit): k and M mean 1,024 and 1,048,576 (an 8k context is 8,192 tokens).
  const tokens = field.unit === 'tokens';
  const scale: Record<string, number> =
    field.unit === 'GB'
      ? { gb: 1, g: 1, gib: 2 ** 30 / 1e9, tb: 1000, tib: 2 ** 40 / 1e9, mb: 1e-3, mib: 2 ** 20 / 1e9 }
      : tokens
        ? { k: 1024, m: 1024 ** 2 }
        : { k: 1e3, m: 1e6, b: 1e9, g: 1e9, t: 1e12 };
  const factor = scale[suffix];
  if (factor === undefined || !Number.isFinite(value)) return text;
  return String(Number((value * factor).toPrecision(15)));
}

export type FieldInput = (key: string, text: string) => void;

export class Form {
  readonly element: HTMLFormElement;
  readonly #controls = new Map<string, HTMLInputElement | HTMLSelectElement>();
  readonly #messages = new Map<string, HTMLElement>();
  readonly #rows = new Map<string, HTMLElement>();
  readonly #parsed = new Map<string, HTMLElement>();
  readonly #labelTexts = new Map<string, Text>();
  /** What each label's text node shows (updateVisibility writes only the ones that change). */
  readonly #labelsShown = new Map<string, string>();
  /** The fields marked as needing the user's input (markAssumed). */
  #assumedShown = new Set<string>();
  readonly #fields = new Map<string, Field>();
  readonly #general: HTMLElement;
  #errorKeys = new Set<string>();
  /** The messages shown at fields, by key (errors, warnings, an offer): a change touches only the fields whose
   * messages change, found without reading the DOM of the other fields. */
  readonly #messageStates = new Map<string, string>();
  /** The "auto: …" placeholders shown, by key: written only when they change. */
  readonly #placeholders = new Map<string, string>();

  constructor(engine: Engine, onInput: FieldInput) {
    this.element = el('form', { id: 'config-form', novalidate: true, 'aria-label': 'Configuration' });
    this.element.addEventListener('submit', (event) => event.preventDefault());
    this.#general = el('div', { class: 'message general', role: 'alert', id: 'form-general' });
    const first = el('fieldset', { class: 'group group-essentials', id: 'essentials' }, el('legend', {}, GROUP_TITLES.essentials!));
    for (const field of essentials(engine.fields)) first.appendChild(this.#fieldRow(engine, field, onInput));
    this.element.appendChild(first);
    const groups = new Map<string, HTMLFieldSetElement>();
    for (const field of engine.fields) {
      if (field.essential > 0) continue;
      let fieldset = groups.get(field.group);
      if (!fieldset) {
        fieldset = el('fieldset', { class: `group group-${field.group}` });
        groups.set(field.group, fieldset);
        this.element.appendChild(
          el(
            'details',
            { class: 'group-details', id: `group-${field.group}` },
            el('summary', {}, GROUP_TITLES[field.group] ?? field.group),
            fieldset,
          ),
        );
      }
      fieldset.appendChild(this.#fieldRow(engine, field, onInput));
    }
    this.element.appendChild(this.#general);
  }

  #fieldRow(engine: Engine, field: Field, onInput: FieldInput): HTMLElement {
    const id = `f-${field.key}`;
    const control = this.#control(engine, field, id);
    this.#fields.set(field.key, field);
    // Not live: the field's read-back and messages are its description (aria-describedby), read when it is focused;
    // the verdict's one live region (LedgerView) says what the edit did.
    const parsed = el('span', { class: 'parsed', id: `p-${field.key}` });
    this.#parsed.set(field.key, parsed);
    const emit = () => {
      if (control instanceof HTMLInputElement && control.type === 'checkbox') return onInput(field.key, String(control.checked));
      let text = control.value;
      if (control instanceof HTMLInputElement) {
        // An emptied auto field means auto (0); a number typed as people write it is read, and shown.
        if (field.zeroMeansAuto && text.trim() === '') text = '0';
        const read = readNumber(text, field);
        parsed.textContent = read !== text.trim() && read !== text ? `= ${groupedDecimal(Number(read), 0, 6)}` : '';
        text = read;
      }
      onInput(field.key, text);
    };
    control.addEventListener(control instanceof HTMLSelectElement || control.type === 'checkbox' ? 'change' : 'input', emit);
    this.#controls.set(field.key, control);
    const message = el('div', { class: 'message', id: `m-${field.key}` });
    this.#messages.set(field.key, message);
    // The help and the source are the field table's, generated beside the page (its wasm leaves them out).
    const text = FIELD_TEXT[field.key] ?? { help: field.help, section: field.section };
    const help = el(
      'div',
      { class: 'help', id: `h-${field.key}` },
      `${text.help}. ${capitalize(field.range)}.`,
      el('span', { class: 'section' }, text.section),
    );
    control.setAttribute('aria-describedby', `h-${field.key} m-${field.key}`);
    const labelText = document.createTextNode(field.label);
    this.#labelTexts.set(field.key, labelText);
    this.#labelsShown.set(field.key, field.label);
    const label = el('label', { for: id }, labelText, field.unit ? el('span', { class: 'unit' }, field.unit) : null, parsed);
    const row = el(
      'div',
      { class: `field kind-${field.kind}`, 'data-field': field.key, title: `${field.key}: ${field.range}` },
      label,
      control,
      help,
      message,
    );
    if (field.key === 'model') row.appendChild(this.#modelSearch(engine, control as HTMLSelectElement, emit));
    this.#rows.set(field.key, row);
    return row;
  }

  // Type-ahead over the model presets (label or id, any part of it): picking one selects it.
  #modelSearch(engine: Engine, select: HTMLSelectElement, emit: () => void): HTMLElement {
    const list = el('datalist', { id: 'model-list' }, ...engine.modelPresets.map((p) => el('option', { value: p.label })));
    const search = el('input', {
      id: 'model-search',
      type: 'search',
      list: 'model-list',
      placeholder: 'Search the models (70B, mixtral, deepseek…)',
      'aria-label': 'Search the model presets',
      autocomplete: 'off',
    });
    const status = el('span', { id: 'model-search-status', class: 'parsed', 'aria-live': 'polite' });
    // Every typed word must appear in the preset's label or id ("llama 3.1 70b" is Llama-3.1 70B); a search selects
    // on an exact name or a unique match, and a search that stops matching gives back the model it started from.
    const words = (text: string) => text.toLowerCase().replace(/[-_/]/g, ' ').split(/\s+/).filter(Boolean);
    let before: string | undefined;
    search.addEventListener('focus', () => (before = select.value));
    search.addEventListener('input', () => {
      const text = search.value.trim().toLowerCase();
      before ??= select.value;
      if (!text) {
        // A cleared search starts again from the model now selected.
        before = select.value;
        status.textContent = '';
        return;
      }
      const typed = words(text);
      const exact = engine.modelPresets.find((p) => p.label.toLowerCase() === text || p.id === text);
      const matches = engine.modelPresets.filter((p) => {
        const name = words(`${p.label} ${p.id}`).join(' ');
        return typed.every((word) => name.includes(word));
      });
      const chosen = exact ?? (matches.length === 1 ? matches[0] : undefined);
      const target = chosen?.id ?? (matches.length === 0 ? before : undefined);
      status.textContent = chosen
        ? ''
        : matches.length === 0
          ? 'no match: paste its config.json in the importer'
          : `${matches.length} models match`;
      if (target !== undefined && select.value !== target) {
        select.value = target;
        emit();
      }
    });
    return el('div', { class: 'model-search' }, search, list, status);
  }

  #control(engine: Engine, field: Field, id: string): HTMLInputElement | HTMLSelectElement {
    if (field.kind === 'boolean') return el('input', { id, name: field.key, type: 'checkbox' });
    if (field.kind === 'choice') {
      const select = el('select', { id, name: field.key });
      // The model presets are grouped by family (the engine's, in its order); a choice outside them (custom) stays
      // ungrouped at the end.
      const groups = new Map<string, HTMLOptGroupElement>();
      for (const choice of field.choices) {
        const option = el('option', { value: choice }, choiceLabel(engine, field.key, choice));
        const family = field.key === 'model' ? engine.modelPresets.find((p) => p.id === choice)?.family : undefined;
        if (family === undefined) {
          select.appendChild(option);
          continue;
        }
        let group = groups.get(family);
        if (!group) {
          group = el('optgroup', { label: family });
          groups.set(family, group);
          select.insertBefore(group, select.querySelector(':scope > option'));
        }
        group.appendChild(option);
      }
      return select;
    }
    return el('input', {
      id,
      name: field.key,
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'false',
    });
  }

  /** Shows the configuration's values: a 0 that means auto as its derived value's placeholder, GB in the page's unit. */
  show(texts: Record<keyof Config, string>, states: FieldStates, unit: Unit): void {
    const active = document.activeElement;
    this.#controls.forEach((control, key) => {
      const field = this.#fields.get(key)!;
      let text = texts[key as keyof Config];
      if (control instanceof HTMLInputElement && control.type === 'checkbox') {
        control.checked = text === 'true';
        return;
      }
      if (control instanceof HTMLInputElement) {
        if (field.zeroMeansAuto && text === '0') {
          const auto = states.auto[key as keyof Config];
          const placeholder = `auto: ${auto === undefined ? field.autoMeaning : field.kind === 'number' ? String(auto) : formatCount(auto)}`;
          if (this.#placeholders.get(key) !== placeholder) {
            this.#placeholders.set(key, placeholder);
            control.placeholder = placeholder;
          }
          text = '';
        }
        // A capacity in GB follows the page's unit; what is typed is read back with its unit (readNumber).
        if (field.unit === 'GB' && text !== '') text = gbText(Number(text), unit);
      }
      if (active === control) return; // being typed in: its text and the value read stay
      if (control.value !== text) control.value = text;
      const parsed = this.#parsed.get(key)!;
      if (parsed.firstChild) parsed.textContent = '';
    });
    this.updateVisibility(states);
  }

  /** Hides what does not apply; a field with an error stays visible, and its collapsed group opens. */
  updateVisibility(states: FieldStates): void {
    const hidden = new Set<string>(states.hidden);
    // forEach, not for…of over entries: no [key, value] array per field and change (this runs on every keystroke).
    this.#rows.forEach((row, key) => {
      const visible = !hidden.has(key) || this.#errorKeys.has(key);
      if (row.hidden === visible) row.hidden = !visible;
    });
    // A field that means something else in this mode says so (mb in inference: concurrent sequences). The label
    // shown is kept here: reading a text node's data back makes a new string each time.
    this.#labelTexts.forEach((text, key) => {
      const want = states.labels[key as keyof Config] ?? this.#fields.get(key)!.label;
      if (this.#labelsShown.get(key) === want) return;
      this.#labelsShown.set(key, want);
      text.data = want;
    });
  }

  /** Highlights the fields an import could not fill (needs the user's input), opening their groups. */
  markAssumed(keys: Set<string>): void {
    // Nothing assumed before or now (every change but an import's): nothing to unmark or mark.
    if (keys.size === 0 && this.#assumedShown.size === 0) return;
    this.#rows.forEach((row, key) => {
      const assumed = keys.has(key);
      if (this.#assumedShown.has(key) === assumed) return;
      row.classList.toggle('needs-input', assumed);
      if (assumed) {
        this.reveal(key);
        row.hidden = false;
      }
    });
    this.#assumedShown = new Set(keys);
  }

  /** Opens the group that holds a field (a link to a field in error, a test, the planner). */
  reveal(key: string): void {
    const details = this.#rows.get(key)?.closest('details');
    if (details && !details.open) details.open = true;
  }

  /** Errors and warnings next to their fields; ones without a field at the end of the form. `offer`: values to
   * pick from at a field in error (the TP sizes a model allows). */
  showProblems(errors: Problem[], warnings: Problem[], offer?: Offer): void {
    const byField = new Map<string, { errors: string[]; warnings: string[] }>();
    const general: string[] = [];
    const collect = (problems: Problem[], kind: 'errors' | 'warnings') => {
      for (const p of problems) {
        if (!this.#messages.has(p.field)) {
          general.push(p.field ? `${p.field}: ${p.message}` : p.message);
          continue;
        }
        let entry = byField.get(p.field);
        if (!entry) byField.set(p.field, (entry = { errors: [], warnings: [] }));
        entry[kind].push(p.message);
      }
    };
    collect(errors, 'errors');
    collect(warnings, 'warnings');
    this.#errorKeys = new Set(errors.map((e) => e.field).filter((key) => this.#messages.has(key)));
    for (const key of this.#errorKeys) {
      this.reveal(key);
      const row = this.#rows.get(key);
      if (row?.hidden) row.hidden = false;
    }
    // Touch only the fields whose messages changed: restyling every field costs a layout each edit. The fields
    // to look at are those with a message now or before, and the one offered values.
    const keys = new Set([...byField.keys(), ...this.#messageStates.keys()]);
    if (offer) keys.add(offer.key);
    for (const key of keys) {
      const message = this.#messages.get(key)!;
      const entry = byField.get(key) ?? { errors: [], warnings: [] };
      const offered = offer && offer.key === key && entry.errors.length > 0 ? offer : undefined;
      const state = `${entry.errors.join('\n')}\u0000${entry.warnings.join('\n')}${offered ? `\u0000${offered.values.join(',')}` : ''}`;
      if ((this.#messageStates.get(key) ?? '\u0000') === state) continue;
      if (state === '\u0000') this.#messageStates.delete(key);
      else this.#messageStates.set(key, state);
      const hasError = entry.errors.length > 0;
      message.className = `message${hasError ? ' error' : entry.warnings.length ? ' warning' : ''}`;
      const choices = offered
        ? el(
            'p',
            { class: 'offer' },
            'Use ',
            ...offered.values.map((value) => {
              const button = el('button', { type: 'button', class: 'offer-value', 'data-value': String(value) }, `${key} = ${value}`);
              button.addEventListener('click', () => offered.pick(value));
              return button;
            }),
          )
        : null;
      replaceChildren(message, ...[...entry.errors, ...entry.warnings].map((text) => el('p', {}, text)), choices);
      const control = this.#controls.get(key);
      control?.setAttribute('aria-invalid', String(hasError));
      control?.closest('.field')?.classList.toggle('has-error', hasError);
    }
    const generalState = general.join('\n');
    if (this.#general.dataset.state !== generalState) {
      this.#general.dataset.state = generalState;
      replaceChildren(this.#general, ...general.map((text) => el('p', {}, text)));
    }
  }
}

export interface Offer {
  key: string;
  values: number[];
  pick: (value: number) => void;
}

function gbText(gb: number, unit: Unit): string {
  if (!Number.isFinite(gb)) return String(gb);
  const value = unit === 'gib' ? (gb * 1e9) / 2 ** 30 : gb;
  const rounded = Number(value.toFixed(2));
  return unit === 'gib' ? `${rounded} GiB` : rounded === gb ? String(gb) : `${rounded} GB`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function choiceLabel(engine: Engine, key: string, choice: string): string {
  if (key === 'model') {
    const preset = engine.modelPresets.find((p) => p.id === choice);
    if (preset) return preset.label;
  }
  if (key === 'model' && choice === 'custom') return 'Custom architecture (imported or edited)';
  if (key === 'gpu') {
    const preset = engine.gpuPresets.find((p) => p.id === choice);
    if (preset) return preset.label;
  }
  return choice;
}
