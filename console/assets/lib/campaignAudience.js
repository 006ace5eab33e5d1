// @ts-check
/* A campaign's audience in its form: tags, a saved segment and contacts picked by search (the API
 * takes them as a union), with a preview of who can be sent; shown fixed once the campaign is not a
 * Draft, as the spec says. */
import { getContact, listSegments, previewAudience, searchTeam } from '../api/endpoints.js';
import { errorText } from './api.js';
import { h, options } from './dom.js';
/** @import { Body, Ok } from '../api/types' */
/** @typedef {Body<'/campaigns', 'post'>['channel']} Channel */

/**
 * @param {(name: string) => string} id the form's ids
 * @param {Ok<'/campaigns/{campaignId}', 'get'> | undefined} c the campaign edited, if any
 * @param {() => Channel} channelOf the form's channel now
 */
export function audiencePicker(id, c, channelOf) {
  const labelled = (/** @type {string} */ name, /** @type {string} */ label, /** @type {Element} */ el) => [
    h('label', { for: id(name) }, label),
    el,
  ];
  const editable = !c || c.status === 'draft';
  const tags = h('input', {
    type: 'text',
    id: id('tags'),
    placeholder: 'newsletter, vip',
    value: c && c.tags ? c.tags.join(', ') : '',
  });
  const segment = h('select', { id: id('segment') }, h('option', { value: '' }, 'No segment'));
  const segmentName = h('span', {}, c && c.segmentId ? c.segmentId : 'none');
  void listSegments({ limit: 100 }).then((res) => {
    if (res.status !== 200) return;
    const named = res.body.data.find((x) => c && x.id === c.segmentId);
    if (named) segmentName.textContent = named.name;
    segment.append(
      ...options(
        res.body.data.map((x) => [x.id, x.name]),
        c && c.segmentId,
      ),
    );
  });
  /** @type {Map<string, string>} contact id → how it is shown */
  const picked = new Map((c && c.contactIds ? c.contactIds : []).map((x) => [x, x]));
  const pickedList = h('ul', { class: 'picked', id: id('picked'), 'aria-label': 'Contacts picked' });
  /** @returns {void} */
  const drawPicked = () =>
    pickedList.replaceChildren(
      ...[...picked].map(([cid, shown]) =>
        h(
          'li',
          { dataset: { contact: cid } },
          shown,
          ' ',
          editable
            ? h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Remove ' + shown,
                  onclick: () => {
                    picked.delete(cid);
                    drawPicked();
                  },
                },
                'Remove',
              )
            : null,
        ),
      ),
    );
  // The picked contacts of a campaign read by name (at most 50 are looked up; the rest show their id).
  for (const cid of [...picked.keys()].slice(0, 50))
    void getContact(cid).then((res) => {
      if (res.status === 200 && picked.has(cid)) {
        const reach = [res.body.email, res.body.phone, res.body.company].filter(Boolean).join(' · ');
        picked.set(cid, (res.body.name || cid) + (reach ? ' (' + reach + ')' : ''));
      }
      drawPicked();
    });
  drawPicked();
  const find = h('input', { type: 'text', id: id('find'), placeholder: 'a name, an email' });
  const found = h('ul', { class: 'found', 'aria-label': 'Contacts found' });
  const search = async () => {
    const res = await searchTeam({ q: find.value.trim(), types: 'contact', limit: 10 });
    if (res.status !== 200) return found.replaceChildren(h('li', {}, errorText(res)));
    if (!res.body.data.length) return found.replaceChildren(h('li', { class: 'muted' }, 'No contact matches.'));
    found.replaceChildren(
      ...res.body.data.map((x) => {
        const shown = x.title + (x.snippet ? ' (' + x.snippet + ')' : '');
        return h(
          'li',
          {},
          shown,
          ' ',
          h(
            'button',
            {
              type: 'button',
              'aria-label': 'Add ' + shown,
              onclick: (/** @type {Event} */ ev) => {
                picked.set(x.id, shown);
                drawPicked();
                const button = /** @type {HTMLButtonElement} */ (ev.currentTarget);
                button.textContent = 'Added';
                button.setAttribute('aria-label', 'Added ' + shown);
                button.disabled = true;
              },
            },
            'Add',
          ),
        );
      }),
    );
  };
  find.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      void search();
    }
  });
  const audience = () => ({
    segmentId: segment.value,
    tags: tags.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    contactIds: [...picked.keys()],
  });
  const previewOutcome = h('p', { role: 'status', class: 'outcome', id: id('audience-preview') });
  const askPreview = async () => {
    const a = audience();
    const res = await previewAudience(
      c && !editable
        ? { campaignId: c.id }
        : {
            channel: channelOf(),
            ...(a.segmentId ? { segmentId: a.segmentId } : {}),
            ...(a.tags.length ? { tags: a.tags } : {}),
            ...(a.contactIds.length ? { contactIds: a.contactIds } : {}),
          },
    );
    if (res.status !== 200) return (previewOutcome.textContent = errorText(res));
    const skipped = Object.entries(res.body.skipped)
      .filter(([, n]) => n > 0)
      .map(([reason, n]) => n + ' ' + reason.replace(/_/g, ' '));
    previewOutcome.textContent =
      res.body.sendable +
      ' of ' +
      res.body.total +
      ' can be sent' +
      (skipped.length ? '; skipped: ' + skipped.join(', ') : '') +
      '.';
  };
  const el = h(
    'fieldset',
    { id: id('audience') },
    h('legend', {}, 'Audience'),
    editable
      ? [
          labelled('tags', 'Contacts with any of these tags', tags),
          labelled('segment', 'Contacts of a saved segment', segment),
          labelled('find', 'Contacts picked by search', find),
          h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => void search() }, 'Search')),
          found,
        ]
      : [
          h('p', { class: 'muted' }, 'Fixed: the audience can change only while the campaign is a Draft.'),
          h('p', {}, 'Tags: ' + (c && c.tags && c.tags.length ? c.tags.join(', ') : 'none')),
          h('p', {}, 'Segment: ', segmentName),
        ],
    h('p', { class: 'muted' }, 'Picked contacts:'),
    pickedList,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => void askPreview() }, 'Preview audience'),
    ),
    previewOutcome,
  );
  return {
    el,
    /** What the form sends: null when the audience is fixed. */
    values: () => (editable ? audience() : null),
  };
}
