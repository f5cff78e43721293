// What the page says outside the checklist: the notices bar (parameters of the link it ignored, and what the
// engine chose for the user), and the screen shown instead of the page when its engine cannot be loaded.
import type { Problem } from './engine';
import { cappedList, el, replaceChildren } from './dom';
import { LISTED_ITEMS } from './limits';

export class NoticesView {
  readonly element = el('div', { id: 'notices', class: 'notices', role: 'status' });

  /** Shows the notices under `title` (by default, how many parameters of the link were ignored); none: no change. */
  show(notices: Problem[], title?: string): void {
    if (notices.length === 0) return;
    replaceChildren(
      this.element,
      el('strong', {}, title ?? `Ignored ${notices.length} parameter${notices.length === 1 ? '' : 's'} of the link:`),
      cappedList(
        undefined,
        notices.map((n) => ({ text: n.message, attributes: { 'data-field': n.field } })),
        LISTED_ITEMS,
      ),
    );
    this.element.classList.add('visible');
  }
}

/** Instead of the page: why it could not start, when its engine loaded (a fault of the page, not of the host). */
export function startErrorView(message: string): HTMLElement {
  return el('div', { class: 'load-error', role: 'alert', id: 'load-error' }, el('p', {}, `membudget could not start: ${message}.`));
}

/** Instead of the page: why its engine could not be loaded, and what a host that embeds it must do. */
export function loadErrorView(message: string): HTMLElement {
  return el(
    'div',
    { class: 'load-error', role: 'alert', id: 'load-error' },
    el('p', {}, `membudget could not start: its engine (membudget.wasm) could not be loaded (${message}).`),
    el(
      'p',
      {},
      'If this page is embedded in another site, the host must serve the .wasm to the frame: from the same origin, or with an Access-Control-Allow-Origin header when the frame is sandboxed; or embed the single-file build (membudget.html), which carries its engine inline. A blocked request (an extension, a proxy) stops it too.',
    ),
  );
}
