// @ts-check
/* Lists in pages over the API's cursors. */
import { api, errorText } from './api.js';
import { fill, h } from './dom.js';
import { setStatus } from './frame.js';

/** `path` with the API's keyset paging: `limit`, and the `cursor` of the page asked for. */
const pagePath = (path, limit, cursor) =>
  path + (path.includes('?') ? '&' : '?') + 'limit=' + limit + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');

/**
 * A list in pages, over the API's own cursors (`pagination.nextCursor`): Previous / Next buttons,
 * and `refresh()` reloads the page being shown (what a poll calls). `draw(items)` answers its content.
 */
export function pagedList(label, path, limit, draw) {
  const body = h('div', {});
  const where = h('span', { class: 'muted' });
  const prev = h('button', { type: 'button', 'aria-label': 'Previous page of ' + label }, 'Previous');
  const next = h('button', { type: 'button', 'aria-label': 'Next page of ' + label }, 'Next');
  const controls = h('div', { class: 'pager', role: 'group', 'aria-label': label + ': pages' }, prev, where, next);
  // cursors[n] asks for page n (the first needs none); a page's answer adds the cursor of the next.
  const cursors = [null];
  let at = 0;
  let asked = 0;
  const list = {
    path,
    el: h('div', { class: 'paged' }, body, controls),
    async refresh() {
      const mine = ++asked;
      const res = await api('GET', pagePath(list.path, limit, cursors[at]));
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
    /** Back to the first page of another query (a filter changed). */
    async restart(newPath) {
      list.path = newPath;
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
