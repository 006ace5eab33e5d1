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

/**
 * Names the services define (room events, event types, step and condition types) and the API's
 * public base URL: CONSOLE_VOCABULARY of console/pages.ts, in the page's <meta name="console-vocabulary">.
 * @typedef {{
 *   roomEvents: string[],
 *   webhookEventTypes: string[],
 *   contactEvents: string[],
 *   enrollFields: string[],
 *   stepTypes: string[],
 *   conditionTypes: { type: string, value: 'none' | 'number' | 'boolean' | 'text' }[],
 *   hookSources: string[],
 *   webHookEvents: string[],
 *   messageSources: string[],
 *   formFields: string[],
 *   mediaTypes: string[],
 *   artifactTypes: string[],
 *   apiBaseUrl: string,
 *   mediaMaxBytes: number,
 * }} Vocabulary
 */
/** @type {Vocabulary} */
export const vocabulary = JSON.parse(
  document.querySelector('meta[name="console-vocabulary"]')?.getAttribute('content') || '{}',
);

/** What the page says in its status line (`role="status"`). */
export const setStatus = (/** @type {string} */ text) => {
  statusLine.textContent = text;
};
/** The page's heading: the subject's name once read ("Campaign: Spring sale"). */
export function setTitle(/** @type {string} */ text) {
  const heading = document.querySelector('h1');
  if (heading) heading.textContent = text;
}

/** The page's subject is not this team's, or not there: "Campaign not found." */
export function notFound(/** @type {string} */ what) {
  setStatus('');
  content.replaceChildren(h('p', { class: 'error', role: 'alert' }, what + ' not found.'));
}

/**
 * Repeats `fn` every `ms` while the page is open; the page stays usable if one round fails.
 * @param {number} ms
 * @param {() => Promise<unknown>} fn
 */
export function every(ms, fn) {
  let stopped = false;
  const round = async () => {
    try {
      await fn();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== 'signed out') setStatus('Could not refresh: ' + message);
    }
    if (!stopped) setTimeout(round, ms);
  };
  void round();
  return () => {
    stopped = true;
  };
}
