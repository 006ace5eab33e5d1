// @ts-check
/* The frame the server rendered (console/pages.ts): the page's content, its status line, its id and vocabulary. */
import { h } from './dom.js';

/**
 * An element of the frame, which the server always renders.
 * @param {string} id
 */
function frameElement(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error('The console frame has no #' + id);
  return el;
}

const main = frameElement('main');
/** Where the page draws itself. */
export const content = frameElement('content');
const statusLine = frameElement('status');
/** The page's name in the page list (console/pages.ts), and the id in its path, if any. */
export const pageName = main.dataset.page || '';
export const pageId = main.dataset.id || '';

/** Names the services define (room events, event types, step and condition types) and the API's public base URL (console/pages.ts). */
export const vocabulary = JSON.parse(
  document.querySelector('meta[name="console-vocabulary"]')?.getAttribute('content') || '{}',
);

export const setStatus = (text) => {
  statusLine.textContent = text;
};
export function notFound(what) {
  setStatus('');
  content.replaceChildren(h('p', { class: 'error', role: 'alert' }, what + ' not found.'));
}

/** Repeats `fn` every `ms` while the page is open; the page stays usable if one round fails. */
export function every(ms, fn) {
  let stopped = false;
  const round = async () => {
    try {
      await fn();
    } catch (err) {
      if (String(err && err.message) !== 'signed out') setStatus('Could not refresh: ' + err.message);
    }
    if (!stopped) setTimeout(round, ms);
  };
  void round();
  return () => {
    stopped = true;
  };
}
