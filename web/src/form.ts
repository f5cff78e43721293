// The form, generated from the engine's field table: one control per field, grouped as the table
// groups them, each with its unit, range, help, source and a place for its error or warning.
import type { Config, Engine, Field, Problem } from './engine';
import { el, replaceChildren } from './dom';
import { formatCount, formatWithUnit } from './format';

const GROUP_TITLES: Record<string, string> = {
  model: 'Model',
  parallelism: 'Parallelism',
  training: 'Training',
  hardware: 'Hardware',
  inference: 'Inference (mode = inference)',
  method: 'Method',
};

export type FieldInput = (key: string, text: string) => void;

export class Form {
  readonly element: HTMLFormElement;
  readonly #controls = new Map<string, HTMLInputElement | HTMLSelectElement>();
  readonly #messages = new Map<string, HTMLElement>();
  readonly #general: HTMLElement;

  constructor(engine: Engine, onInput: FieldInput) {
    this.element = el('form', { id: 'config-form', novalidate: true, 'aria-label': 'Configuration' });
    this.element.addEventListener('submit', (event) => event.preventDefault());
    this.#general = el('div', { class: 'message general', role: 'alert', id: 'form-general' });
    const groups = new Map<string, HTMLFieldSetElement>();
    // The method decides what everything else means: its group comes first.
    const ordered = [...engine.fields.filter((f) => f.group === 'method'), ...engine.fields.filter((f) => f.group !== 'method')];
    for (const field of ordered) {
      let fieldset = groups.get(field.group);
      if (!fieldset) {
        fieldset = el('fieldset', { class: `group group-${field.group}` }, el('legend', {}, GROUP_TITLES[field.group] ?? field.group));
        groups.set(field.group, fieldset);
        this.element.appendChild(fieldset);
      }
      fieldset.appendChild(this.#fieldRow(engine, field, onInput));
    }
    this.element.appendChild(this.#general);
  }

  #fieldRow(engine: Engine, field: Field, onInput: FieldInput): HTMLElement {
    const id = `f-${field.key}`;
    const control = this.#control(engine, field, id);
    const emit = () =>
      onInput(field.key, control instanceof HTMLInputElement && control.type === 'checkbox' ? String(control.checked) : control.value);
    control.addEventListener(control instanceof HTMLSelectElement || control.type === 'checkbox' ? 'change' : 'input', emit);
    this.#controls.set(field.key, control);
    const message = el('div', { class: 'message', id: `m-${field.key}`, 'aria-live': 'polite' });
    this.#messages.set(field.key, message);
    const help = el(
      'div',
      { class: 'help', id: `h-${field.key}` },
      `${field.help}. ${capitalize(field.range)}.`,
      el('span', { class: 'section' }, field.section),
    );
    control.setAttribute('aria-describedby', `h-${field.key} m-${field.key}`);
    const label = el('label', { for: id }, field.label, field.unit ? el('span', { class: 'unit' }, field.unit) : null);
    return el(
      'div',
      { class: `field kind-${field.kind}`, 'data-field': field.key, title: `${field.key}: ${field.range}` },
      label,
      control,
      help,
      message,
    );
  }

  #control(engine: Engine, field: Field, id: string): HTMLInputElement | HTMLSelectElement {
    if (field.kind === 'boolean') return el('input', { id, name: field.key, type: 'checkbox' });
    if (field.kind === 'choice') {
      const select = el('select', { id, name: field.key });
      for (const choice of field.choices) select.appendChild(el('option', { value: choice }, choiceLabel(engine, field.key, choice)));
      return select;
    }
    return el('input', {
      id,
      name: field.key,
      type: 'text',
      inputmode: field.kind === 'integer' ? 'numeric' : field.kind === 'text' ? 'text' : 'decimal',
      autocomplete: 'off',
      spellcheck: 'false',
    });
  }

  /** Shows the configuration's values. */
  show(texts: Record<keyof Config, string>): void {
    for (const [key, control] of this.#controls) {
      const text = texts[key as keyof Config];
      if (control instanceof HTMLInputElement && control.type === 'checkbox') control.checked = text === 'true';
      else if (control.value !== text) control.value = text;
    }
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
    // Touch only the fields whose messages changed: restyling every field costs a layout each edit.
    for (const [key, message] of this.#messages) {
      const entry = byField.get(key) ?? { errors: [], warnings: [] };
      const state = `${entry.errors.join('\n')}\u0000${entry.warnings.join('\n')}`;
      const offered = offer && offer.key === key && entry.errors.length > 0 ? offer : undefined;
      const offerState = offered ? `\u0000${offered.values.join(',')}` : '';
      if (message.dataset.state === state + offerState || (!message.dataset.state && state === '\u0000' && !offered)) continue;
      message.dataset.state = state + offerState;
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

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function choiceLabel(engine: Engine, key: string, choice: string): string {
  if (key === 'model') {
    const preset = engine.modelPresets.find((p) => p.id === choice);
    if (preset) return `${preset.label} · ${formatCount(preset.parameterCount)} parameters`;
  }
  if (key === 'model' && choice === 'custom') return 'Custom architecture (imported or edited)';
  if (key === 'gpu') {
    const preset = engine.gpuPresets.find((p) => p.id === choice);
    if (preset) return `${preset.label} · ${formatWithUnit(preset.capacityBytes, 'gb')}`;
  }
  return choice;
}
