// @ts-check
/* Rooms: the list, and a form that opens one. */
import { listRooms, openRoom, revokeRoomKeys } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { count, h, options, table, when } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';
import { agents } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
/** @import { Item } from '../api/types' */

export default async function roomsPage() {
  const names = await agents();
  const nameField = h('input', { type: 'text', id: 'new-room-name', required: true, maxlength: 100 });
  const agentField = h('select', { id: 'new-room-agent' }, options([...names]));
  const open = h(
    'form',
    {
      class: 'toolbar',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const res = await openRoom({ name: nameField.value.trim(), agentId: agentField.value });
        if (res.status === 200 || res.status === 201)
          window.location.assign('/app/rooms/' + encodeURIComponent(res.body.room.id));
        else setStatus(errorText(res));
      },
    },
    h('div', {}, h('label', { for: 'new-room-name' }, 'New room'), nameField),
    h('div', {}, h('label', { for: 'new-room-agent' }, 'Agent'), agentField),
    h('div', {}, h('button', { class: 'primary', type: 'submit' }, 'Open')),
  );
  // Every stream key of the room stops opening it; its open streams end within seconds.
  /** @param {Item<'/rooms'>} r @param {HTMLElement} outcome */
  const revokeKeys = async (r, outcome) => {
    const res = await revokeRoomKeys(r.id);
    outcome.textContent = res.status === 200 ? ' revoked ' + count(res.body.revoked, 'key') : ' ' + errorText(res);
  };
  const rooms = pagedList('Rooms', listRooms, 25, (items) =>
    table(
      ['Room', 'Agent', 'Last activity', 'Events', 'Stream keys'],
      items.map((r) => {
        const outcome = h('span', { role: 'status' });
        return h(
          'tr',
          { dataset: { id: r.id } },
          h('td', {}, h('a', { href: '/app/rooms/' + encodeURIComponent(r.id) }, r.name)),
          h('td', {}, names.get(r.agentId) || r.agentId),
          h('td', {}, when(r.lastActivityAt)),
          h('td', {}, String(r.lastEventId)),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': 'Revoke keys of ' + r.name,
                onclick: () => revokeKeys(r, outcome),
              },
              'Revoke keys',
            ),
            outcome,
          ),
        );
      }),
      'No rooms yet.',
      'Rooms',
    ),
  );
  content.replaceChildren(open, rooms.el);
  every(5000, async () => {
    const res = await rooms.refresh();
    setStatus(count(res.body.data.length, 'room') + ' on this page · updated ' + new Date().toLocaleTimeString());
  });
}
