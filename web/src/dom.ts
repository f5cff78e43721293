// DOM construction that never parses markup: every string becomes a text node or an attribute value.
import { groupedDecimal } from './format';

type Attributes = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
}

function setAttributes(node: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    // Event-handler attributes would run code; nothing here sets them, and nothing may.
    if (/^on/i.test(name)) throw new Error(`refusing to set ${name}`);
    node.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(node: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/**
 * Writes a node's text only where it changed: a re-render must stay within a few milliseconds. A node holding one
 * text node has that node's data changed in place, which the browser lays out as changed text; replacing it (what
 * textContent does) removes a node from the layout and inserts another.
 */
export function setText(node: Node, text: string): void {
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE) {
    if ((only as Text).data !== text) (only as Text).data = text;
  } else if (node.textContent !== text) node.textContent = text;
}

export function replaceChildren(node: Element, ...children: Child[]): void {
  node.replaceChildren();
  append(node, children);
}

/**
 * A list of `items` (each a string, or an element's text and attributes): its first `shown` as items, then one that
 * counts the rest of `total`, so that a long report (200,000 unmapped values, a link of 150,000 keys) costs the page
 * no more than a short one; its items are appended one by one, never spread into one call's arguments.
 */
export function cappedList(
  id: string | undefined,
  items: readonly (string | { text: string; attributes: Attributes })[],
  shown: number,
  total = items.length,
): HTMLUListElement {
  const list = el('ul', id === undefined ? {} : { id });
  for (const item of items.slice(0, shown))
    list.append(typeof item === 'string' ? el('li', {}, item) : el('li', item.attributes, item.text));
  const more = total - Math.min(items.length, shown);
  if (more > 0) list.append(el('li', { class: 'more', 'data-more': String(more) }, `… and ${groupedDecimal(more, 0, 3)} more, not shown`));
  return list;
}
