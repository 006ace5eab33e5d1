// @ts-check
/* Segments: saved audiences, who is in them, and a New segment form. */
import { createSegment, deleteSegment, listSegmentContacts, listSegments } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { count, fill, h, table } from '../lib/dom.js';
import { content, setStatus, vocabulary } from '../lib/frame.js';
import { conditionsOf, conditionText } from '../lib/lines.js';
import { pagedList } from '../lib/paged.js';
import { deleteButton, smallForm } from '../lib/widgets.js';
/** @import { Body } from '../api/types' */
/** @typedef {Body<'/segments', 'post'>['groups'][number]['conditions']} Conditions */

export default function segmentsPage() {
  const preview = h('div', { id: 'segment-preview' });
  // After every change too: the status line counts what the page shows.
  const refresh = async () => {
    const res = await segments.refresh();
    setStatus(count(res.body.data.length, 'segment') + ' on this page');
  };
  const segments = pagedList('Segments', listSegments, 25, (items) =>
    table(
      ['Segment', 'Contacts who match', ''],
      items.map((s) =>
        h(
          'tr',
          { dataset: { id: s.id } },
          h('td', {}, s.name),
          h(
            'td',
            {},
            s.groups
              .map((g) => g.conditions.map(conditionText).join(g.match === 'all' ? ' and ' : ' or '))
              .join(s.match === 'all' ? '; and ' : '; or '),
          ),
          h(
            'td',
            {},
            h(
              'span',
              { class: 'small-actions' },
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Contacts in ' + s.name,
                  onclick: async () => {
                    const r = await listSegmentContacts(s.id, { limit: 100 });
                    if (r.status !== 200) return setStatus(errorText(r));
                    fill(
                      preview,
                      h(
                        'section',
                        { class: 'card', 'aria-labelledby': 'preview-title' },
                        h('h2', { id: 'preview-title' }, 'In ' + s.name + ' now'),
                        table(
                          ['Name', 'Email', 'Tags'],
                          r.body.data.map((c) =>
                            h(
                              'tr',
                              { dataset: { id: c.id } },
                              h('td', {}, c.name || ''),
                              h('td', {}, c.email || ''),
                              h('td', {}, (c.tags || []).join(', ')),
                            ),
                          ),
                          'Nobody matches yet.',
                          'Contacts in the segment',
                        ),
                      ),
                    );
                  },
                },
                'Contacts',
              ),
              deleteButton({
                text: 'Delete',
                label: 'Delete segment ' + s.name,
                remove: () => deleteSegment(s.id),
                ok: 204,
                after: refresh,
              }),
            ),
          ),
        ),
      ),
      'No segments yet.',
      'Segments',
    ),
  );
  const { form } = smallForm(
    'segment',
    'New segment',
    [
      { name: 'name', label: 'Name', required: true },
      {
        name: 'match',
        label: 'A contact is in it when it matches',
        type: 'select',
        options: [
          ['all', 'all of the conditions'],
          ['any', 'any of the conditions'],
        ],
      },
      {
        name: 'conditions',
        label:
          'Conditions, one per line: ' +
          vocabulary.conditionTypes.map((c) => c.type + (c.value === 'none' ? '' : ' …')).join(', '),
        type: 'textarea',
        required: true,
      },
    ],
    'Create segment',
    async (/** @type {{ name: string, match: 'all' | 'any', conditions: string }} */ v) => {
      const res = await createSegment({
        name: v.name.trim(),
        // The conditions as the person wrote them: the API checks each type and value.
        groups: [{ match: v.match, conditions: /** @type {Conditions} */ (conditionsOf(v.conditions)) }],
      });
      if (res.status !== 201) return errorText(res);
      await refresh();
      return { text: 'Created ' + res.body.name + '.', done: true };
    },
  );
  content.replaceChildren(segments.el, preview, form);
  void refresh().catch((err) => setStatus(err.message));
}
