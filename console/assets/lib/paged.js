// @ts-check
/* Lists in pages over the API's cursors. */
import { errorText } from './api.js';
import { fill, h } from './dom.js';
import { setStatus } from './frame.js';
/** @import { Answer, PageAsked } from '../api/types' */
/** @import { Child } from './types' */

/**
 * A list in pages, over the API's own cursors (`pagination.nextCursor`): Previous / Next buttons,
 * and `refresh()` reloads the page being shown (what a poll calls). `load(page)` asks the API for
 * a page (an endpoint function of a list, given `limit` and `cursor`); `draw(items)` answers its content.
 * @template {{ data: unknown[], pagination?: { nextCursor: string | null } }} B the answer of the list's endpoint
 * @param {string} label
 * @param {(page: PageAsked) => Promise<Answer<B>>} load
 * @param {number} limit
 * @param {(items: B['data']) => Child} draw
 */
export function pagedList(label, load, limit, draw) {
  const body = h('div', {});
  const where = h('span', { class: 'muted' });
  const prev = h('button', { type: 'button', 'aria-label': 'Previous page of ' + label }, 'Previous');
  const next = h('button', { type: 'button', 'aria-label': 'Next page of ' + label }, 'Next');
  const controls = h('div', { class: 'pager', role: 'group', 'aria-label': label + ': pages' }, prev, where, next);
  // cursors[n] asks for page n (the first needs none); a page's answer adds the cursor of the next.
  /** @type {(string | undefined)[]} */
  const cursors = [undefined];
  let at = 0;
  let asked = 0;
  const list = {
    load,
    el: h('div', { class: 'paged' }, body, controls),
    async refresh() {
      const mine = ++asked;
      const res = await list.load({ limit, cursor: cursors[at] });
      if (res.status !== 200) throw new Error(errorText(res));
      if (mine !== asked) return res; // a newer request (a click) answers instead
      cursors.length = at + 1;
      if (res.body.pagination && res.body.pagination.nextCursor) cursors.push(res.body.pagination.nextCursor);
      fill(body, draw(res.body.data));
      prev.disabled = at === 0;
      next.disabled = cursors.length <= at + 1;
      where.textContent = 'Page ' + (at + 1);
      controls.hidden = at === 0 && next.disabled;
      return res;
    },
    /**
     * Back to the first page of another query (a filter changed).
     * @param {typeof load} newLoad
     */
    async restart(newLoad) {
      list.load = newLoad;
      cursors.length = 1;
      at = 0;
      return list.refresh();
    },
  };
  prev.addEventListener('click', () => {
    if (at > 0) at -= 1;
    void list.refresh().catch((err) => setStatus(err.message));
  });
  next.addEventListener('click', () => {
    if (cursors.length > at + 1) at += 1;
    void list.refresh().catch((err) => setStatus(err.message));
  });
  return list;
}
