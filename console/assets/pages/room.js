// @ts-check
/* A room: its event stream followed live, and the composer. */
import { approveExecution, cancelTurn, declineExecution, openRoom, sendMessage } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, h, json, when } from '../lib/dom.js';
import { content, notFound, pageId, setStatus, setTitle, vocabulary } from '../lib/frame.js';
import { agents } from '../lib/names.js';

export default async function roomPage() {
  // A fresh key for this room: the API checks the room is this team's (else 404).
  const opened = await openRoom({ roomId: pageId });
  if (opened.status === 404) return notFound('Room');
  if (opened.status !== 200 && opened.status !== 201) return setStatus(errorText(opened));
  const room = opened.body.room;
  const names = await agents();
  setTitle('Room: ' + room.name);
  const state = h('span', { class: 'badge', id: 'stream-state' }, 'connecting');
  const receivedCount = h('span', { id: 'events-received' }, '0');
  const lastEvent = h('span', { id: 'last-event' }, '0');
  const reconnectCount = h('span', { id: 'reconnects' }, '0');
  const meta = h(
    'p',
    { class: 'muted' },
    'Agent: ',
    names.get(room.agentId) || room.agentId,
    ' · events received ',
    receivedCount,
    ' · last event ',
    lastEvent,
    ' · reconnects ',
    reconnectCount,
    ' · ',
    state,
  );
  const stream = h('div', { class: 'stream', id: 'stream', role: 'log', 'aria-label': 'Room events', tabindex: 0 });
  const input = h('textarea', { id: 'room-message', required: true, maxlength: 20000 });
  const composer = h(
    'form',
    {
      class: 'composer',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const message = input.value.trim();
        if (!message) return;
        input.value = '';
        const res = await sendMessage(room.agentId, {
          message,
          roomId: room.id,
          waitSeconds: 0,
        });
        if (res.status !== 200 && res.status !== 202) setStatus(errorText(res));
      },
    },
    h('div', {}, h('label', { for: 'room-message' }, 'Message'), input),
    h('button', { class: 'primary', type: 'submit' }, 'Send'),
  );
  content.replaceChildren(h('div', { class: 'room' }, meta, stream, composer));

  /** @type {Map<string, HTMLElement>} */
  const deltas = new Map();
  /** The running turns' Cancel buttons (a stuck model call, an approval nobody gives), by turn id. */
  const cancels = new Map();
  /** @param {string} turnId */
  const cancelButton = (turnId) => {
    const outcome = h('span', { role: 'status' });
    const button = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: async () => {
          const res = await cancelTurn(room.id, turnId);
          outcome.textContent = res.status === 202 ? ' cancelling…' : ' ' + errorText(res);
        },
      },
      'Cancel turn',
    );
    const line = h('div', { class: 'event muted', dataset: { cancels: turnId } }, 'Turn running ', button, outcome);
    cancels.set(turnId, line);
    return line;
  };
  let last = 0;
  let received = 0;
  let reconnects = 0;
  const show = (/** @type {Node} */ el) => stream.append(el);
  /**
   * An event of the room's stream: its type, its id (the room's sequence) and its JSON
   * (services/rooms/roomEvents.ts; the stream is not part of the OpenAPI document).
   * @param {string} type
   * @param {number} seq
   * @param {any} data
   */
  const handle = (type, seq, data) => {
    if (seq <= last) return; // a replay after a reconnect never shows an event twice
    // Follow the conversation while the reader is at its end; leave them where they are if they scrolled up.
    const atBottom = stream.scrollTop + stream.clientHeight >= stream.scrollHeight - 40;
    handleEvent(type, seq, data);
    if (atBottom) stream.scrollTop = stream.scrollHeight;
  };
  /** @param {string} type @param {number} seq @param {any} data */
  const handleEvent = (type, seq, data) => {
    last = seq;
    received += 1;
    lastEvent.textContent = String(seq);
    receivedCount.textContent = String(received);
    /** @param {string} cls @param {...import('../lib/types').Child} children */
    const ev = (cls, ...children) =>
      h('div', { class: 'event ' + cls, dataset: { seq: String(seq), type } }, ...children);
    switch (type) {
      case 'message.created':
        if (data.role === 'user') show(ev('user', h('span', { class: 'who' }, 'You: '), data.content || ''));
        else {
          const text = h('span', { class: 'text' });
          deltas.set(data.messageId, text);
          show(ev('assistant', h('span', { class: 'who' }, (names.get(room.agentId) || 'Agent') + ': '), text));
          if (data.turnId && !cancels.has(data.turnId)) show(cancelButton(data.turnId));
        }
        break;
      case 'message.delta': {
        const text = deltas.get(data.messageId);
        if (text) text.textContent += data.text;
        break;
      }
      case 'message.reset': {
        const text = deltas.get(data.messageId);
        if (text) text.textContent = '';
        break;
      }
      case 'message.completed': {
        const text = deltas.get(data.messageId);
        if (text) text.textContent = data.content || '';
        // A step that only called tools says nothing: its calls follow as their own lines.
        if (text && !data.content && text.parentElement) text.parentElement.hidden = true;
        break;
      }
      case 'tool.call':
        show(
          ev(
            'tool',
            'Tool call ',
            h('strong', {}, data.name),
            ' ',
            json(data.arguments),
            data.needsApproval ? ' (needs approval)' : '',
          ),
        );
        break;
      case 'tool.result':
        show(
          ev(
            'tool',
            'Tool ',
            h('strong', {}, data.name),
            ' ',
            badge(data.status),
            ' ',
            String(data.result || '').slice(0, 500),
          ),
        );
        break;
      case 'approval.requested': {
        const outcome = h('span', { role: 'status' });
        const decide = async (/** @type {'approve' | 'decline'} */ verb) => {
          const res = await (verb === 'approve' ? approveExecution : declineExecution)(data.executionId, {});
          outcome.textContent =
            res.status === 200 ? (verb === 'approve' ? ' approved' : ' declined') : ' ' + errorText(res);
        };
        show(
          ev(
            'approval',
            'Approval needed: ',
            h('strong', {}, data.tool || data.warp),
            ' ',
            json(data.arguments),
            ' (expires ',
            when(data.expiresAt),
            ') ',
            h('button', { type: 'button', class: 'primary', onclick: () => decide('approve') }, 'Approve'),
            ' ',
            h('button', { type: 'button', class: 'danger', onclick: () => decide('decline') }, 'Decline'),
            outcome,
          ),
        );
        break;
      }
      case 'approval.decided':
        show(ev('approval', 'Approval ', badge(data.status)));
        break;
      case 'turn.completed':
        cancels.get(data.turnId)?.remove();
        show(
          ev(
            'muted',
            'Turn completed · ',
            String(data.promptTokens || 0),
            ' + ',
            String(data.completionTokens || 0),
            ' tokens',
          ),
        );
        break;
      case 'turn.failed':
        cancels.get(data.turnId)?.remove();
        show(ev('error', 'Turn failed: ', data.error && (data.error.code || data.error)));
        break;
      default:
        show(ev('muted', type));
    }
  };
  const pathOf = (/** @type {string} */ url) => new URL(url).pathname + new URL(url).search;
  let streamPath = pathOf(opened.body.streamUrl);
  /** @type {EventSource} */
  let source;
  // A key that expired or was revoked: the page asks for a fresh one (it is the team's own console).
  const freshKey = async () => {
    const again = await openRoom({ roomId: room.id }).catch(() => null);
    if (again && (again.status === 200 || again.status === 201)) streamPath = pathOf(again.body.streamUrl);
  };
  const connect = () => {
    // EventSource resends Last-Event-ID itself; a source the browser gave up on is replaced with lastEventId in the query.
    source = new EventSource(last ? streamPath + '&lastEventId=' + last : streamPath);
    source.onopen = () => {
      state.className = 'badge live';
      state.textContent = 'live';
    };
    source.onerror = () => {
      state.className = 'badge reconnecting';
      state.textContent = 'reconnecting';
      reconnects += 1;
      reconnectCount.textContent = String(reconnects);
      if (source.readyState === EventSource.CLOSED) setTimeout(() => freshKey().then(connect), 2000);
    };
    // Events the team's retention purged: one line, and the count moves past them.
    source.addEventListener('gap', (e) => {
      const data = JSON.parse(e.data);
      last = Number(e.lastEventId);
      lastEvent.textContent = String(last);
      show(h('div', { class: 'event muted gap' }, 'Events ' + data.from + '–' + data.to + ' are no longer kept'));
    });
    // The key stopped opening the stream: reconnect with a fresh one.
    source.addEventListener('closed', () => {
      source.close();
      state.className = 'badge reconnecting';
      state.textContent = 'reconnecting';
      freshKey().then(connect);
    });
    // Every type services/rooms/roomEvents.ts defines (the page's vocabulary): one the switch above
    // does not draw yet still counts and shows as a line, so the event count stays the room's.
    for (const type of vocabulary.roomEvents)
      source.addEventListener(type, (e) => handle(type, Number(e.lastEventId), JSON.parse(e.data)));
  };
  connect();
  setStatus('');
}
