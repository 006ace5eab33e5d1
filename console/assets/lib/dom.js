// @ts-check
/* Building the page: elements from the DOM API (text from the API is never parsed as HTML), tables, fields. */

/** @import { Attrs, Child } from './types' */

/**
 * Element builder: h('p', { class: 'muted' }, 'text', child). Strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (name === 'class') el.className = String(value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of /** @type {Child[]} */ (/** @type {unknown[]} */ (children).flat(Infinity))) {
    if (child === undefined || child === null || child === false || Array.isArray(child)) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * Replaces an element's children, leaving out the null / false of conditional parts (the DOM would print "null").
 * @param {Element} el
 * @param {...Child} children
 */
export const fill = (el, ...children) =>
  el.replaceChildren(
    .../** @type {(Node | string)[]} */ (
      /** @type {Child[]} */ (/** @type {unknown[]} */ (children).flat(Infinity)).filter(
        (c) => c !== null && c !== undefined && c !== false,
      )
    ),
  );
/**
 * An email address or phone number that may wrap on a narrow card: after "@" and before a dot,
 * where a reader expects it, never inside a word (the text nodes and <wbr>s to append).
 */
export const wrappable = (/** @type {string} */ address) =>
  String(address)
    .split(/(?<=@)|(?=\.)/)
    .flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]));
/** "1 campaign", "2 campaigns". */
export const count = (/** @type {number} */ n, /** @type {string} */ noun) => n + ' ' + noun + (n === 1 ? '' : 's');
/** A tool's arguments or result: JSON text as sent, an object as compact JSON. */
export const json = (/** @type {unknown} */ value) =>
  typeof value === 'string' ? value : JSON.stringify(value === undefined ? {} : value);
export const badge = (/** @type {string} */ status) =>
  h('span', { class: 'badge ' + status }, status.replace(/_/g, ' '));
export const when = (/** @type {string | null | undefined} */ iso) => (iso ? new Date(iso).toLocaleString() : '—');
/**
 * A list of facts, each [term, what it is]; a row whose value is missing or empty is left out.
 * @param {([string, Child] | null | false)[]} rows
 */
export function facts(rows) {
  return h(
    'dl',
    { class: 'facts' },
    rows
      .filter((r) => !!r && r[1] !== undefined && r[1] !== null && r[1] !== '')
      .map((r) => (r ? [h('dt', {}, r[0]), h('dd', {}, r[1])] : null)),
  );
}

/**
 * A table in a box that scrolls sideways on a small screen (focusable, so a keyboard can scroll it).
 * @param {string[]} headers
 * @param {Node[]} rows
 * @param {string} empty what the box says when there are no rows
 * @param {string} label
 */
export function table(headers, rows, empty, label) {
  if (!rows.length) return h('p', { class: 'muted' }, empty);
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': label },
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((x) => h('th', { scope: 'col' }, x)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}
/** A labelled field: [label, control]. */
export const field = (/** @type {string} */ id, /** @type {string} */ label, /** @type {Element} */ control) => [
  h('label', { for: id }, label),
  control,
];
/**
 * The options of a <select>, from [value, label] pairs.
 * @param {[string, string][]} pairsList
 * @param {string | null} [selected]
 */
export const options = (pairsList, selected) =>
  pairsList.map(([value, label]) => h('option', { value, selected: value === selected }, label));
