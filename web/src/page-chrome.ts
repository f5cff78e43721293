// What frames the page's views and holds no state: the skip link, the masthead with its actions, the footer.
import { el } from './dom';
import type { Example } from './examples';
import { UNIT_MEANING } from './format';

export function skipLink(): HTMLElement {
  return el('a', { class: 'skip-link', href: '#answer' }, 'Skip to the verdict');
}

/** The name, what it is for, and `actions` (the planner's button, the embed's link to the full calculator). */
export function masthead(...actions: HTMLElement[]): HTMLElement {
  return el(
    'header',
    { class: 'masthead' },
    el(
      'div',
      {},
      el('h1', {}, 'membudget'),
      el(
        'p',
        { class: 'tagline' },
        'Per-GPU memory verification checklist: does this parallel training configuration fit, and what eats the memory?',
      ),
    ),
    ...actions,
  );
}

/** A newcomer's first actions, first on the page: the importer (import the launch file, or try an example), then `actions`. */
export function startStrip(importer: HTMLElement, ...actions: HTMLElement[]): HTMLElement {
  return el('nav', { id: 'start', class: 'start', 'aria-label': 'Start' }, importer, ...actions);
}

/** One-click examples (`onExample` gets the one clicked), shown first in the importer. */
export function examplesRow(examples: readonly Example[], onExample: (example: Example) => void): HTMLElement {
  return el(
    'p',
    { id: 'examples', class: 'examples' },
    'Or start from an example: ',
    ...examples.map((example) => {
      const button = el('button', { type: 'button', class: 'example', 'data-example': example.id }, example.label);
      button.addEventListener('click', () => onExample(example));
      return button;
    }),
  );
}

export function footer(): HTMLElement {
  return el(
    'footer',
    {},
    el(
      'p',
      {},
      'Formulas: the chapter “Memory Budget Verification” (§1 static memory, §2 activations, §3 budget, §4 checklist, §5 pitfalls); each line shows its formula and its numbers. Computed in your browser by the membudget engine (C++ compiled to WebAssembly); nothing is sent anywhere (a model’s config.json is fetched from huggingface.co only when you ask for it by its Hub id). ',
      UNIT_MEANING.gb,
      ', ',
      UNIT_MEANING.gib,
      '.',
    ),
  );
}
