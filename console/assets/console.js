/* The team console's one script: renders each page from the /v1 API, reached as /app/api with the
 * session cookie and the page's CSRF token. No framework, no inline handlers (the CSP forbids them):
 * every element is built with the DOM API, so text from the API is never parsed as HTML. */
'use strict';

(function () {
  const main = document.getElementById('main');
  if (!main) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
  const content = document.getElementById('content');
  const statusLine = document.getElementById('status');
  const page = main.dataset.page;
  const pageId = main.dataset.id;
  /** Names the services define (room events, event types, step and condition types) and the API's public base URL (console/pages.ts). */
  const vocabulary = JSON.parse(document.querySelector('meta[name="console-vocabulary"]').getAttribute('content'));

  /** The API as this person: same paths as /v1, answers { status, body }. */
  async function api(method, path, body) {
    const res = await fetch('/app/api' + path, {
      method,
      credentials: 'same-origin',
      headers: Object.assign(
        { 'X-CSRF-Token': csrf, Accept: 'application/json' },
        body === undefined ? {} : { 'Content-Type': 'application/json' },
      ),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 401) {
      window.location.assign('/app/login?next=' + encodeURIComponent(window.location.pathname));
      throw new Error('signed out');
    }
    const text = await res.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch (_err) {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  }

  /** A file sent as multipart/form-data (field "file", as POST /v1/media takes it), with the page's CSRF token. */
  async function upload(path, file) {
    const body = new FormData();
    body.append('file', file);
    const res = await fetch('/app/api' + path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-CSRF-Token': csrf, Accept: 'application/json' },
      body,
    });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  }

  /** Element builder: h('p', { class: 'muted' }, 'text', child). Strings become text nodes. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
      else if (name === 'class') el.className = value;
      else if (name === 'dataset') Object.assign(el.dataset, value);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  /** Replaces an element's children, leaving out the null / false of conditional parts (the DOM would print "null"). */
  const fill = (el, ...children) =>
    el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  /**
   * An email address or phone number that may wrap on a narrow card: after "@" and before a dot,
   * where a reader expects it, never inside a word (the text nodes and <wbr>s to append).
   */
  const wrappable = (address) =>
    String(address)
      .split(/(?<=@)|(?=\.)/)
      .flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]));
  /** "1 campaign", "2 campaigns". */
  const count = (n, noun) => n + ' ' + noun + (n === 1 ? '' : 's');
  const setStatus = (text) => {
    statusLine.textContent = text;
  };
  const errorText = (res) =>
    res.body && res.body.error ? res.body.error.message + ' (' + res.body.error.code + ')' : 'HTTP ' + res.status;
  /**
   * A red button that DELETEs `path`: on the API's `ok` status it redraws (`after`), otherwise it
   * shows the API's error through `report` (the page's status line by default).
   */
  const deleteButton = ({ text, label, path, ok, after, report = setStatus }) =>
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'aria-label': label,
        onclick: async () => {
          const r = await api('DELETE', path);
          if (r.status !== ok) return report(errorText(r));
          await after();
        },
      },
      text,
    );
  /** A tool's arguments or result: JSON text as sent, an object as compact JSON. */
  const json = (value) => (typeof value === 'string' ? value : JSON.stringify(value === undefined ? {} : value));
  const badge = (status) => h('span', { class: 'badge ' + status }, status.replace(/_/g, ' '));
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
  function facts(rows) {
    return h(
      'dl',
      { class: 'facts' },
      rows
        .filter((r) => r && r[1] !== undefined && r[1] !== null && r[1] !== '')
        .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    );
  }
  function notFound(what) {
    setStatus('');
    content.replaceChildren(h('p', { class: 'error', role: 'alert' }, what + ' not found.'));
  }

  /** Repeats `fn` every `ms` while the page is open; the page stays usable if one round fails. */
  function every(ms, fn) {
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

  let agentNames = null;
  async function agents() {
    if (!agentNames) {
      const res = await api('GET', '/agents?limit=100');
      agentNames = new Map((res.body.data || []).map((a) => [a.uuid || a.id, a.name]));
    }
    return agentNames;
  }

  // ---------------------------------------------------------------- Approvals inbox

  const WARP_TITLES = {
    'artifact-deliver': 'Delivery',
    'agent-permission': 'Permission request',
    'svc-campaign-send': 'Campaign send',
  };
  const CHANNELS = { email: 'Email', sms: 'SMS', whatsapp: 'WhatsApp', push: 'Push' };

  /** A card for one pending warp execution, from the approval page's own view of it (GET …/approval-view). */
  function executionCard(execution, view) {
    const draft = execution.draft;
    const title = WARP_TITLES[execution.warp] || 'Approval';
    // The API takes edits of a delivery's message and subject; other writes are approved as asked.
    const editable = execution.warp === 'artifact-deliver' && !!draft;
    const outcome = h('p', { class: 'outcome', role: 'status' });
    const subjectField = h('input', {
      type: 'text',
      id: 'subject-' + execution.id,
      value: (draft && draft.subject) || '',
    });
    const messageField = h('textarea', { id: 'message-' + execution.id }, (draft && draft.message) || '');

    const decide = async (verb, body) => {
      for (const b of card.querySelectorAll('button')) b.disabled = true;
      // A refresh while the answer is on its way keeps the card, so the person sees how it went.
      card.dataset.deciding = 'true';
      const res = await api('POST', '/warp-executions/' + encodeURIComponent(execution.id) + '/' + verb, body);
      delete card.dataset.deciding;
      if (res.status === 200) {
        outcome.textContent = verb === 'approve' ? 'Approved (' + res.body.status + ')' : 'Declined';
        card.dataset.decided = verb;
      } else {
        outcome.textContent = errorText(res);
        for (const b of card.querySelectorAll('button')) b.disabled = false;
      }
    };
    const approve = () => {
      if (!editable) return decide('approve', {});
      const edits = {};
      const subject = subjectField.value.trim();
      const message = messageField.value.trim();
      if (subject && subject !== (draft.subject || '')) edits.subject = subject;
      if (message && message !== draft.message) edits.message = message;
      return decide('approve', edits);
    };

    const message = view.message;
    const card = h(
      'article',
      {
        class: 'card',
        dataset: { id: execution.id, warp: execution.warp },
        'aria-labelledby': 'title-' + execution.id,
      },
      h('span', { class: 'kind' }, title),
      h('h3', { id: 'title-' + execution.id }, view.question),
      h('p', {}, view.summary),
      facts([
        [
          'To',
          view.recipients.length
            ? h(
                'ul',
                { class: 'plain recipients' },
                view.recipients.map((r) => h('li', {}, r.name ? r.name + ' — ' : '', wrappable(r.address))),
              )
            : null,
        ],
        ...view.facts.map((f) => [f.label, f.value]),
        ['Asked', when(execution.createdAt)],
      ]),
      editable
        ? [
            h('label', { for: 'subject-' + execution.id }, 'Subject'),
            subjectField,
            h('label', { for: 'message-' + execution.id }, 'Message'),
            messageField,
            draft.links ? [h('h4', {}, 'Sent with the message'), h('div', { class: 'message' }, draft.links)] : null,
          ]
        : message
          ? [
              message.subject ? facts([['Subject', message.subject]]) : null,
              h('h4', {}, 'Message'),
              h('div', { class: 'message' }, message.body),
            ]
          : null,
      h(
        'div',
        { class: 'actions' },
        h('button', { class: 'primary', type: 'button', onclick: approve }, view.approveLabel),
        h('button', { class: 'danger', type: 'button', onclick: () => decide('decline', {}) }, 'Decline'),
      ),
      outcome,
    );
    return card;
  }

  function campaignCardsCard(campaign, cards) {
    const outcome = h('p', { class: 'outcome', role: 'status' });
    const key = 'cards-' + campaign.id;
    const decide = async (body) => {
      for (const b of card.querySelectorAll('button')) b.disabled = true;
      // As for an execution's card: the decision is written before its answer comes back.
      card.dataset.deciding = 'true';
      const res = await api('POST', '/campaigns/' + encodeURIComponent(campaign.id) + '/cards', body);
      delete card.dataset.deciding;
      outcome.textContent =
        res.status === 200 ? 'Approved ' + res.body.approved + ', skipped ' + res.body.skipped : errorText(res);
      if (res.status !== 200) for (const b of card.querySelectorAll('button')) b.disabled = false;
      else card.dataset.decided = 'cards';
    };
    const card = h(
      'article',
      { class: 'card', dataset: { id: key }, 'aria-labelledby': 'title-' + key },
      h('span', { class: 'kind' }, 'Campaign approval cards'),
      h(
        'h3',
        { id: 'title-' + key },
        h('a', { href: '/app/campaigns/' + encodeURIComponent(campaign.id) }, campaign.name),
      ),
      facts([
        ['Channel', CHANNELS[campaign.channel] || campaign.channel],
        campaign.channel === 'push' ? ['Title', campaign.title] : ['Subject', campaign.subject],
        ['Agent', campaign.agentName],
      ]),
      h('h4', {}, 'Waiting to be sent to ' + cards.length),
      h(
        'ul',
        { class: 'decide recipients' },
        cards.map((c) =>
          h(
            'li',
            {},
            h('span', { class: 'address' }, wrappable(c.address || c.contactId)),
            h(
              'span',
              { class: 'small-actions' },
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Approve ' + (c.address || c.contactId),
                  onclick: () => decide({ approve: [c.contactId] }),
                },
                'Approve',
              ),
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Skip ' + (c.address || c.contactId),
                  onclick: () => decide({ skip: [c.contactId] }),
                },
                'Skip',
              ),
            ),
          ),
        ),
      ),
      h('h4', {}, 'Message'),
      h('div', { class: 'message' }, campaign.content || ''),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { class: 'primary', type: 'button', onclick: () => decide({ approve: 'all' }) },
          'Approve all ' + cards.length,
        ),
        h('button', { class: 'danger', type: 'button', onclick: () => decide({ skip: 'all' }) }, 'Skip all'),
      ),
      outcome,
    );
    return card;
  }

  function approvalsPage() {
    const list = h('div', { class: 'cards', id: 'inbox' });
    const empty = h('p', { class: 'muted', id: 'inbox-empty' }, 'Nothing waits for your approval.');
    content.replaceChildren(list, empty);
    every(3000, async () => {
      const names = await agents();
      const [executions, campaigns] = await Promise.all([
        api('GET', '/warp-executions?status=pending_approval&limit=100'),
        api('GET', '/campaigns?limit=100'),
      ]);
      if (executions.status !== 200) throw new Error(errorText(executions));
      const wanted = new Map();
      for (const e of executions.body.data) {
        // A delivery is shown once drafted: its message is what an approver edits.
        if (e.warp === 'artifact-deliver' && !e.draft) continue;
        wanted.set(e.id, async () => {
          const view = await api('GET', '/warp-executions/' + encodeURIComponent(e.id) + '/approval-view');
          return view.status === 200 ? executionCard(e, view.body) : null;
        });
      }
      const sending = (campaigns.body.data || []).filter((c) => c.status === 'sending');
      const cardLists = await Promise.all(
        sending.map((c) => api('GET', '/campaigns/' + encodeURIComponent(c.id) + '/cards?perPage=100')),
      );
      sending.forEach((c, i) => {
        const cards = cardLists[i].status === 200 ? cardLists[i].body.data : [];
        c.agentName = c.agentId ? names.get(c.agentId) : undefined;
        if (cards.length)
          wanted.set('cards-' + c.id + ':' + cards.map((x) => x.contactId).join(','), async () =>
            campaignCardsCard(c, cards),
          );
      });
      // Cards already shown stay as they are (a half-typed edit survives a refresh); gone ones leave,
      // a decided one after its outcome has been read, one being decided not before its answer.
      for (const el of [...list.children]) {
        const key = el.dataset.key;
        if (wanted.has(key) || el.dataset.deciding) continue;
        if (el.dataset.decided) setTimeout(() => el.remove(), 5000);
        else el.remove();
      }
      const shown = new Set([...list.children].map((el) => el.dataset.key));
      for (const [key, make] of wanted) {
        if (shown.has(key)) continue;
        const card = await make();
        if (!card) continue;
        card.dataset.key = key;
        list.prepend(card);
      }
      empty.hidden = list.children.length > 0;
      setStatus(wanted.size + ' waiting · updated ' + new Date().toLocaleTimeString());
    });
  }

  // ---------------------------------------------------------------- Rooms

  async function roomsPage() {
    const names = await agents();
    const nameField = h('input', { type: 'text', id: 'new-room-name', required: true, maxlength: 100 });
    const agentField = h('select', { id: 'new-room-agent' }, options([...names]));
    const open = h(
      'form',
      {
        class: 'toolbar',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const res = await api('POST', '/rooms', { name: nameField.value.trim(), agentId: agentField.value });
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
    const revokeKeys = async (r, outcome) => {
      const res = await api('DELETE', '/rooms/' + encodeURIComponent(r.id) + '/keys');
      outcome.textContent = res.status === 200 ? ' revoked ' + count(res.body.revoked, 'key') : ' ' + errorText(res);
    };
    const rooms = pagedList('Rooms', '/rooms', 25, (items) =>
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

  async function roomPage() {
    // A fresh key for this room: the API checks the room is this team's (else 404).
    const opened = await api('POST', '/rooms', { roomId: pageId });
    if (opened.status === 404) return notFound('Room');
    if (opened.status !== 200 && opened.status !== 201) return setStatus(errorText(opened));
    const room = opened.body.room;
    const names = await agents();
    document.querySelector('h1').textContent = 'Room: ' + room.name;
    const state = h('span', { class: 'badge', id: 'stream-state' }, 'connecting');
    const meta = h(
      'p',
      { class: 'muted' },
      'Agent: ',
      names.get(room.agentId) || room.agentId,
      ' · events received ',
      h('span', { id: 'events-received' }, '0'),
      ' · last event ',
      h('span', { id: 'last-event' }, '0'),
      ' · reconnects ',
      h('span', { id: 'reconnects' }, '0'),
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
          const res = await api('POST', '/agents/' + encodeURIComponent(room.agentId) + '/messages', {
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

    const deltas = new Map();
    let last = 0;
    let received = 0;
    let reconnects = 0;
    const show = (el) => stream.append(el);
    const handle = (type, seq, data) => {
      if (seq <= last) return; // a replay after a reconnect never shows an event twice
      // Follow the conversation while the reader is at its end; leave them where they are if they scrolled up.
      const atBottom = stream.scrollTop + stream.clientHeight >= stream.scrollHeight - 40;
      handleEvent(type, seq, data);
      if (atBottom) stream.scrollTop = stream.scrollHeight;
    };
    const handleEvent = (type, seq, data) => {
      last = seq;
      received += 1;
      document.getElementById('last-event').textContent = String(seq);
      document.getElementById('events-received').textContent = String(received);
      const ev = (cls, ...children) =>
        h('div', { class: 'event ' + cls, dataset: { seq: String(seq), type } }, ...children);
      switch (type) {
        case 'message.created':
          if (data.role === 'user') show(ev('user', h('span', { class: 'who' }, 'You: '), data.content || ''));
          else {
            const text = h('span', { class: 'text' });
            deltas.set(data.messageId, text);
            show(ev('assistant', h('span', { class: 'who' }, (names.get(room.agentId) || 'Agent') + ': '), text));
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
          if (text && !data.content) text.parentElement.hidden = true;
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
          const decide = async (verb) => {
            const res = await api('POST', '/warp-executions/' + encodeURIComponent(data.executionId) + '/' + verb, {});
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
          show(ev('error', 'Turn failed: ', data.error && (data.error.code || data.error)));
          break;
        default:
          show(ev('muted', type));
      }
    };
    const pathOf = (url) => new URL(url).pathname + new URL(url).search;
    let streamPath = pathOf(opened.body.streamUrl);
    let source;
    // A key that expired or was revoked: the page asks for a fresh one (it is the team's own console).
    const freshKey = async () => {
      const again = await api('POST', '/rooms', { roomId: room.id }).catch(() => null);
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
        document.getElementById('reconnects').textContent = String(reconnects);
        if (source.readyState === EventSource.CLOSED) setTimeout(() => freshKey().then(connect), 2000);
      };
      // Events the team's retention purged: one line, and the count moves past them.
      source.addEventListener('gap', (e) => {
        const data = JSON.parse(e.data);
        last = Number(e.lastEventId);
        document.getElementById('last-event').textContent = String(last);
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

  // ---------------------------------------------------------------- Campaigns

  /** A table in a box that scrolls sideways on a small screen (focusable, so a keyboard can scroll it). */
  function table(headers, rows, empty, label) {
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

  function campaignsPage() {
    const archivedBox = h('input', { type: 'checkbox', id: 'show-archived' });
    const list = h('div', { id: 'campaign-list' });
    const name = h('input', { type: 'text', id: 'new-name', required: true, maxlength: 200 });
    const channel = h(
      'select',
      { id: 'new-channel' },
      ['email', 'sms', 'push', 'whatsapp'].map((c) => h('option', { value: c }, CHANNELS[c])),
    );
    const subject = h('input', { type: 'text', id: 'new-subject', maxlength: 300 });
    const body = h('textarea', { id: 'new-content', required: true, maxlength: 5000 });
    const tags = h('input', { type: 'text', id: 'new-tags', placeholder: 'newsletter, vip' });
    const segment = h('select', { id: 'new-segment' }, h('option', { value: '' }, 'No segment: by tags'));
    // The team's segments, for an audience by segment (the list is read once; a new one needs a reload).
    void api('GET', '/segments?limit=100').then((res) => {
      if (res.status === 200) segment.append(...options(res.body.data.map((x) => [x.id, x.name])));
    });
    const params = h('textarea', { id: 'new-params', placeholder: 'first=contact.firstName' });
    const outcome = h('p', { role: 'status', class: 'outcome' });
    const audience = () =>
      segment.value
        ? { segmentId: segment.value }
        : {
            tags: tags.value
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          };
    const previewOutcome = h('p', { role: 'status', class: 'outcome', id: 'audience-preview' });
    const previewAudience = async () => {
      const res = await api('POST', '/campaigns/audience-preview', { channel: channel.value, ...audience() });
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
    const create = h(
      'form',
      {
        class: 'card',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const res = await api('POST', '/campaigns', {
            name: name.value.trim(),
            channel: channel.value,
            // One field for both: a push notification's is its title.
            ...(subject.value.trim() ? { [channel.value === 'push' ? 'title' : 'subject']: subject.value.trim() } : {}),
            content: body.value,
            ...audience(),
            templateParams: pairs(params.value),
          });
          if (res.status === 201) window.location.assign('/app/campaigns/' + encodeURIComponent(res.body.id));
          else outcome.textContent = errorText(res);
        },
      },
      h('h2', {}, 'New campaign'),
      h('label', { for: 'new-name' }, 'Name'),
      name,
      h('label', { for: 'new-channel' }, 'Channel'),
      channel,
      h('label', { for: 'new-subject' }, 'Subject (email, push)'),
      subject,
      h('label', { for: 'new-content' }, 'Message ({{placeholder}} allowed)'),
      body,
      h('label', { for: 'new-tags' }, 'Audience: contacts with any of these tags'),
      tags,
      h('label', { for: 'new-segment' }, 'or a saved segment (instead of tags)'),
      segment,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: () => void previewAudience() }, 'Preview audience'),
      ),
      previewOutcome,
      h('label', { for: 'new-params' }, 'Placeholders, one per line: name=contact.firstName or a literal'),
      params,
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Create draft')),
      outcome,
    );
    content.replaceChildren(
      h('div', { class: 'toolbar' }, h('label', { for: 'show-archived' }, archivedBox, ' Show archived')),
      list,
      create,
    );
    const listPath = () => '/campaigns' + (archivedBox.checked ? '?archived=true' : '');
    // In pages; a click on "Show archived" starts again at the first page of the other list
    // (pagedList shows only the latest answer when a poll and the click overlap).
    const campaigns = pagedList('Campaigns', listPath(), 25, (items) =>
      table(
        ['Campaign', 'Channel', 'Status', 'Recipients', 'Sent', 'Skipped', 'Failed', 'Opened', 'Clicked'],
        items.map((c) =>
          h(
            'tr',
            { dataset: { id: c.id } },
            h('td', {}, h('a', { href: '/app/campaigns/' + encodeURIComponent(c.id) }, c.name)),
            h('td', {}, CHANNELS[c.channel] || c.channel),
            h('td', {}, badge(c.status)),
            h('td', {}, String(c.recipientCount)),
            h('td', {}, String(c.sentCount)),
            h('td', {}, String(c.skippedCount)),
            h('td', {}, String(c.failedCount)),
            h('td', {}, String(c.openedCount)),
            h('td', {}, String(c.clickedCount)),
          ),
        ),
        archivedBox.checked ? 'No archived campaigns.' : 'No campaigns yet.',
        'Campaigns',
      ),
    );
    list.append(campaigns.el);
    const shown = (res) =>
      setStatus(count(res.body.data.length, 'campaign') + ' · updated ' + new Date().toLocaleTimeString());
    archivedBox.addEventListener('change', () => void campaigns.restart(listPath()).then(shown));
    every(5000, async () => shown(await campaigns.refresh()));
  }

  const ACTION_LABELS = {
    edit: 'Edit',
    send: 'Send',
    'cancel-schedule': 'Cancel schedule',
    'cancel-send': 'Cancel send',
    'test-send': 'Test send',
    retry: 'Retry',
    archive: 'Archive',
    unarchive: 'Unarchive',
    delete: 'Delete',
    'whatsapp-submit': 'Submit template',
    'whatsapp-refresh': 'Refresh template status',
  };
  /** The simple actions: one POST without a body. */
  const ACTION_PATHS = {
    'cancel-schedule': '/cancel-schedule',
    'cancel-send': '/cancel-send',
    retry: '/retry',
    archive: '/archive',
    unarchive: '/unarchive',
    'whatsapp-submit': '/whatsapp/submit',
    'whatsapp-refresh': '/whatsapp/refresh',
  };

  /** Cumulative series over the timeline's buckets: uPlot data [[x…], [y…]…]. */
  function cumulative(points, keys) {
    const xs = points.map((p) => new Date(p.at).getTime() / 1000);
    return [xs, ...keys.map((k) => points.reduce((acc, p, i) => (acc.push((i ? acc[i - 1] : 0) + p[k]), acc), []))];
  }

  function plot(id, title, series, colors) {
    const holder = h('figure', { class: 'plot', id, 'aria-label': title }, h('figcaption', {}, title));
    const empty = h('p', { class: 'muted' }, 'Nothing yet.');
    holder.append(empty);
    return {
      el: holder,
      update(data) {
        empty.hidden = data[0].length > 0;
        holder.dataset.points = String(data[0].length);
        if (!data[0].length || !window.uPlot) return;
        const width = Math.max(260, holder.clientWidth - 16);
        if (!holder.uplot) {
          holder.uplot = new window.uPlot(
            {
              width,
              height: 220,
              scales: { x: { time: true } },
              series: [{}, ...series.map((label, i) => ({ label, stroke: colors[i], width: 2 }))],
              axes: [{}, { label: 'messages' }],
            },
            data,
            holder,
          );
        } else holder.uplot.setData(data);
      },
    };
  }

  async function campaignPage() {
    const id = encodeURIComponent(pageId);
    const first = await api('GET', '/campaigns/' + id);
    if (first.status === 404) return notFound('Campaign');
    const header = h('div', {});
    const counts = h('div', { class: 'counts', id: 'counts' });
    const toolbar = h('div', { class: 'toolbar', id: 'actions', role: 'group', 'aria-label': 'Actions' });
    const panel = h('div', { id: 'action-panel' });
    const outcome = h('p', { role: 'status', class: 'outcome', id: 'action-outcome' });
    const sentPlot = plot('plot-sent', 'Messages sent over time (cumulative)', ['sent'], ['#1d4ed8']);
    const engagementPlot = plot(
      'plot-engagement',
      'Opens and clicks over time (cumulative)',
      ['opened', 'clicked'],
      ['#15803d', '#b45309'],
    );
    const statusFilter = h(
      'select',
      { id: 'recipient-status' },
      ['', 'sent', 'failed', 'skipped', 'pending'].map((s) => h('option', { value: s }, s || 'all')),
    );
    const recipients = h('div', { id: 'recipients' });
    const message = h('div', {});
    content.replaceChildren(
      header,
      counts,
      toolbar,
      panel,
      outcome,
      h('h2', {}, 'Message'),
      message,
      h('h2', {}, 'Over time'),
      sentPlot.el,
      engagementPlot.el,
      h('h2', {}, 'Recipients'),
      h('div', { class: 'toolbar' }, h('label', { for: 'recipient-status' }, 'Status'), statusFilter),
      recipients,
    );

    let campaign = first.body;
    let shownActions = '';
    const act = async (method, path, body) => {
      outcome.textContent = '…';
      const res = await api(method, '/campaigns/' + id + path, body);
      if (res.status === 202 && res.body && res.body.pending)
        outcome.textContent = 'Waiting for approval: see Approvals (' + res.body.executionId + ')';
      else if (res.status >= 200 && res.status < 300)
        outcome.textContent =
          'Done' + (res.body && res.body.retried !== undefined ? ': ' + res.body.retried + ' retried' : '') + '.';
      else outcome.textContent = errorText(res);
      panel.replaceChildren();
      await refresh();
      return res;
    };
    const forms = {
      send() {
        // The campaign's own time, if it has one (in local time, as the input shows it).
        const own = campaign.scheduledAt ? new Date(campaign.scheduledAt) : null;
        const at = h('input', {
          type: 'datetime-local',
          id: 'send-at',
          value: own ? new Date(own.getTime() - own.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '',
        });
        return h(
          'form',
          {
            class: 'card',
            onsubmit: (ev) => {
              ev.preventDefault();
              // Empty is now, even for a campaign with a scheduledAt of its own.
              void act('POST', '/send', { scheduledAt: at.value ? new Date(at.value).toISOString() : null });
            },
          },
          h('label', { for: 'send-at' }, 'Send at (empty: now)'),
          at,
          h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Send campaign')),
        );
      },
      edit() {
        const name = h('input', { type: 'text', id: 'edit-name', value: campaign.name });
        const isPush = campaign.channel === 'push';
        const subject = h('input', {
          type: 'text',
          id: 'edit-subject',
          value: (isPush ? campaign.title : campaign.subject) || '',
        });
        const text = h('textarea', { id: 'edit-content' }, campaign.content);
        return h(
          'form',
          {
            class: 'card',
            onsubmit: (ev) => {
              ev.preventDefault();
              void act('PATCH', '', {
                name: name.value.trim(),
                content: text.value,
                ...(campaign.channel === 'email' || isPush
                  ? { [isPush ? 'title' : 'subject']: subject.value.trim() || null }
                  : {}),
              });
            },
          },
          h('label', { for: 'edit-name' }, 'Name'),
          name,
          campaign.channel === 'email' || isPush
            ? [h('label', { for: 'edit-subject' }, isPush ? 'Title' : 'Subject'), subject]
            : null,
          h('label', { for: 'edit-content' }, 'Message'),
          text,
          h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Save')),
        );
      },
      'test-send': async () => {
        const contacts = await api('GET', '/contacts?limit=100');
        const pick = h(
          'select',
          { id: 'test-contact' },
          (contacts.body.data || [])
            .filter((c) => c.email)
            .map((c) => h('option', { value: c.id }, (c.name || '') + ' <' + c.email + '>')),
        );
        return h(
          'form',
          {
            class: 'card',
            onsubmit: (ev) => {
              ev.preventDefault();
              void act('POST', '/send-test', { contactId: pick.value });
            },
          },
          h('label', { for: 'test-contact' }, 'Send a [TEST] copy to'),
          pick,
          h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Send test')),
        );
      },
      delete() {
        return h(
          'div',
          { class: 'card' },
          h('p', {}, 'Delete “' + campaign.name + '” for good?'),
          h(
            'button',
            {
              class: 'danger',
              type: 'button',
              onclick: async () => {
                const res = await act('DELETE', '');
                if (res.status === 204) window.location.assign('/app/campaigns');
              },
            },
            'Delete for good',
          ),
        );
      },
    };

    const render = (c, stats) => {
      document.querySelector('h1').textContent = 'Campaign: ' + c.name;
      header.replaceChildren(
        h(
          'p',
          {},
          badge(c.status),
          ' ',
          CHANNELS[c.channel] || c.channel,
          c.archived ? ' · archived' : '',
          c.scheduledAt ? ' · scheduled for ' + when(c.scheduledAt) : '',
          c.rejectionReason ? ' · template rejected: ' + c.rejectionReason : '',
        ),
      );
      const skipReasons = Object.entries(stats.skipReasons || {});
      fill(
        counts,
        ...[
          ['Recipients', stats.recipients],
          ['Sent', stats.sent],
          ['Pending', stats.pending],
          ['Skipped', stats.skipped],
          ['Failed', stats.failed],
          ['Opened', stats.opened],
          ['Clicked', stats.clicked],
          ['Awaiting approval', stats.awaitingApproval],
        ].map(([label, n]) => h('div', { dataset: { count: label } }, h('strong', {}, String(n)), label)),
        skipReasons.length
          ? h(
              'div',
              { class: 'skip-reasons' },
              h('strong', {}, 'Skipped because'),
              skipReasons.map(([r, n]) => r.replace(/_/g, ' ') + ': ' + n).join(', '),
            )
          : null,
      );
      const heading = c.channel === 'push' ? ['Title', c.title] : ['Subject', c.subject];
      fill(message, heading[1] ? facts([heading]) : null, h('div', { class: 'message' }, c.content));
      // Only what the state allows, as the API lists it: the state table lives in the service.
      const key = c.actions.join(',');
      if (key !== shownActions) {
        shownActions = key;
        toolbar.replaceChildren(
          ...c.actions.map((a) =>
            h(
              'button',
              {
                type: 'button',
                class: a === 'delete' || a === 'cancel-send' ? 'danger' : a === 'send' ? 'primary' : undefined,
                dataset: { action: a },
                onclick: async () => {
                  if (ACTION_PATHS[a]) return act('POST', ACTION_PATHS[a], a === 'retry' ? {} : undefined);
                  panel.replaceChildren(await forms[a]());
                },
              },
              ACTION_LABELS[a] || a,
            ),
          ),
        );
      }
    };

    // A refresh and a change of the filter can overlap: only the answer to the latest request is shown.
    let recipientsAsked = 0;
    const showRecipients = async () => {
      const asked = ++recipientsAsked;
      const res = await api(
        'GET',
        '/campaigns/' + id + '/recipients?perPage=100' + (statusFilter.value ? '&status=' + statusFilter.value : ''),
      );
      if (res.status !== 200 || asked !== recipientsAsked) return;
      recipients.replaceChildren(
        table(
          ['Recipient', 'Status', 'Skip reason', 'Retryable', 'Sent', 'Opened', 'Clicked'],
          res.body.data.map((r) =>
            h(
              'tr',
              { dataset: { contact: r.contactId } },
              h('td', {}, r.address || r.contactId),
              h('td', {}, badge(r.status)),
              h(
                'td',
                {},
                r.skipReason ? r.skipReason.replace(/_/g, ' ') : r.error && r.error.error ? r.error.error.code : '',
              ),
              h('td', {}, r.retryable ? 'yes' : 'no'),
              h('td', {}, r.sentAt ? when(r.sentAt) : ''),
              h('td', {}, r.opened_at ? when(r.opened_at) : ''),
              h('td', {}, r.clicked_at ? when(r.clicked_at) : ''),
            ),
          ),
          'No recipients' + (statusFilter.value ? ' ' + statusFilter.value : '') + '.',
          'Recipients',
        ),
      );
    };
    statusFilter.addEventListener('change', () => void showRecipients());

    const refresh = async () => {
      const [c, stats, timeline] = await Promise.all([
        api('GET', '/campaigns/' + id),
        api('GET', '/campaigns/' + id + '/stats'),
        api('GET', '/campaigns/' + id + '/timeline'),
      ]);
      if (c.status === 404) return notFound('Campaign');
      campaign = c.body;
      render(campaign, stats.body);
      sentPlot.update(cumulative(timeline.body.points, ['sent']));
      engagementPlot.update(cumulative(timeline.body.points, ['opened', 'clicked']));
      await showRecipients();
      setStatus('Updated ' + new Date().toLocaleTimeString());
    };
    // Live while a send runs; calmer otherwise.
    let stopped = false;
    const loop = async () => {
      try {
        await refresh();
      } catch (err) {
        setStatus('Could not refresh: ' + err.message);
      }
      if (!stopped) setTimeout(loop, campaign.status === 'sending' || campaign.status === 'scheduled' ? 1500 : 5000);
    };
    window.addEventListener('pagehide', () => {
      stopped = true;
    });
    await loop();
  }

  // ---------------------------------------------------------------- Jobs

  function progressBar(job) {
    const p = job.progress;
    const label = 'Progress of ' + job.jobId;
    if (job.status === 'succeeded') return h('progress', { max: 1, value: 1, 'aria-label': label }, 'done');
    if (!p) return h('span', { class: 'muted' }, job.status === 'failed' ? '—' : 'waiting');
    const bar =
      p.total !== null && p.total !== undefined
        ? h('progress', { max: Math.max(p.total, 1), value: p.completed, 'aria-label': label })
        : h('progress', { 'aria-label': label });
    return h(
      'span',
      {},
      bar,
      ' ',
      p.phase + ' ' + p.completed + (p.total !== null && p.total !== undefined ? ' / ' + p.total : ''),
    );
  }

  /** What a job came to, in words: its error's message, or what its result counts. */
  function jobOutcome(job) {
    if (job.error) return job.error.error.message + ' (' + job.error.error.code + ')';
    const r = job.result;
    if (!r) return '';
    if (typeof r.imported === 'number')
      return r.imported + ' imported, ' + r.duplicates + ' duplicates, ' + r.failed + ' failed';
    if (typeof r.rowCount === 'number') return r.rowCount + ' contacts in ' + r.filename;
    return JSON.stringify(r).slice(0, 160);
  }

  function jobsPage() {
    const list = h('div', { id: 'job-list' });
    const csv = h('textarea', {
      id: 'import-csv',
      required: true,
      placeholder: 'name,email,tags\nAda Lovelace,ada@example.com,newsletter',
    });
    const outcome = h('p', { role: 'status', class: 'outcome' });
    const form = h(
      'form',
      {
        class: 'card',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const res = await api('POST', '/jobs', { type: 'contacts.import', input: { csv: csv.value } });
          outcome.textContent = res.status === 202 ? 'Started ' + res.body.jobId : errorText(res);
          if (res.status === 202) csv.value = '';
        },
      },
      h('h2', {}, 'Import contacts'),
      h('label', { for: 'import-csv' }, 'CSV (name, email, phone, tags, marketingConsent…)'),
      csv,
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Start import')),
      outcome,
    );
    content.replaceChildren(list, form);
    every(2000, async () => {
      const res = await api('GET', '/jobs?limit=50');
      if (res.status !== 200) throw new Error(errorText(res));
      // The list has no progress; a job still at work is read one by one (its workflow answers the progress query).
      const jobs = await Promise.all(
        res.body.data.map(async (j) =>
          j.status === 'running' || j.status === 'queued'
            ? (await api('GET', '/jobs/' + encodeURIComponent(j.jobId))).body
            : j,
        ),
      );
      list.replaceChildren(
        table(
          ['Job', 'Type', 'Status', 'Progress', 'Started', 'Finished', 'Result'],
          jobs.map((j) =>
            h(
              'tr',
              { dataset: { id: j.jobId } },
              h('td', {}, j.jobId),
              h('td', {}, j.type),
              h('td', {}, badge(j.status)),
              h('td', {}, progressBar(j)),
              h('td', { class: 'when' }, when(j.startedAt || j.createdAt)),
              h('td', { class: 'when' }, j.finishedAt ? when(j.finishedAt) : ''),
              h('td', { class: 'result' }, jobOutcome(j)),
            ),
          ),
          'No jobs yet.',
          'Jobs',
        ),
      );
      setStatus(count(jobs.length, 'job') + ' · updated ' + new Date().toLocaleTimeString());
    });
  }

  // ---------------------------------------------------------------- Automations

  function describeStep(step) {
    switch (step.type) {
      case 'wait':
        return 'Wait ' + step.duration;
      case 'waitForEvent':
        return 'Wait for ' + step.event + (step.timeout ? ' (at most ' + step.timeout + ')' : '');
      case 'send':
        return 'Send ' + (CHANNELS[step.channel] || step.channel) + (step.subject ? ': ' + step.subject : '');
      case 'runWarp':
        return 'Run warp ' + step.warp;
      case 'branch':
        return 'Branch' + (step.then ? ' to ' + step.then : '');
      case 'exit':
        return 'Exit';
      default:
        return step.type;
    }
  }

  async function automationsPage() {
    const list = h('div', { class: 'cards', id: 'automation-list' });
    content.replaceChildren(list, await automationForm());
    every(4000, async () => {
      const res = await api('GET', '/automations?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      const counts = await Promise.all(
        res.body.data.map((a) => api('GET', '/automations/' + encodeURIComponent(a.id) + '/step-counts')),
      );
      list.replaceChildren(
        ...res.body.data.map((a, i) => {
          const rows = counts[i].status === 200 ? counts[i].body.data : [];
          const older = rows.filter((r) => r.version !== a.version);
          const toggle = h(
            'button',
            {
              type: 'button',
              onclick: async () => {
                const r = await api('PATCH', '/automations/' + encodeURIComponent(a.id), { enabled: !a.enabled });
                toggle.textContent = r.status === 200 ? (r.body.enabled ? 'Disable' : 'Enable') : errorText(r);
              },
            },
            a.enabled ? 'Disable' : 'Enable',
          );
          return h(
            'article',
            { class: 'card', dataset: { id: a.id }, 'aria-labelledby': 'title-' + a.id },
            h('h3', { id: 'title-' + a.id }, h('a', { href: '/app/automations/' + encodeURIComponent(a.id) }, a.name)),
            h(
              'p',
              {},
              badge(a.enabled ? 'enabled' : 'disabled'),
              ' trigger: ',
              a.trigger.kind +
                (a.trigger.source ? ' ' + a.trigger.source : a.trigger.event ? ' ' + a.trigger.event : ''),
              ' · version ',
              String(a.version),
            ),
            h('p', { class: 'muted enrollment-totals' }, enrollmentTotals(rows)),
            stepsWithCounts(a, rows),
            older.length
              ? h('p', { class: 'muted' }, 'On older versions: ' + older.reduce((n, r) => n + r.active, 0) + ' active')
              : null,
            h('div', { class: 'actions' }, toggle),
          );
        }),
      );
      if (!res.body.data.length) list.replaceChildren(h('p', { class: 'muted' }, 'No automations yet.'));
      setStatus(count(res.body.data.length, 'automation') + ' · updated ' + new Date().toLocaleTimeString());
    });
  }

  // ---------------------------------------------------------------- Agents, contacts, artifacts

  /** A small form: labelled fields, one submit button, an outcome line; `submit(values)` answers the outcome text. */
  function smallForm(idPrefix, title, fields, buttonLabel, submit) {
    const inputs = {};
    const outcome = h('p', { role: 'status', class: 'outcome' });
    const form = h(
      'form',
      {
        class: 'card',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const values = {};
          for (const [name, el] of Object.entries(inputs))
            values[name] = el.type === 'checkbox' ? el.checked : el.type === 'file' ? el.files : el.value;
          const answer = await submit(values);
          // `{ text, done }`: a form whose work is done is emptied for the next one.
          outcome.textContent = typeof answer === 'string' ? answer : answer.text;
          if (answer && answer.done) form.reset();
        },
      },
      h('h2', {}, title),
      fields.map((f) => {
        const id = idPrefix + '-' + f.name;
        const el =
          f.type === 'select'
            ? h(
                'select',
                { id },
                f.options.map(([value, label]) => h('option', { value }, label)),
              )
            : f.type === 'textarea'
              ? h('textarea', { id, required: f.required })
              : h('input', { id, type: f.type || 'text', required: f.required });
        inputs[f.name] = el;
        return f.type === 'checkbox'
          ? h('label', { for: id }, el, ' ', f.label)
          : [h('label', { for: id }, f.label), el];
      }),
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, buttonLabel)),
      outcome,
    );
    return { form, inputs };
  }

  /** The native apps (each adds its MCP tools; install is idempotent) and the MCP credits of this cycle. */
  async function drawApps(box) {
    const [apps, credits] = await Promise.all([api('GET', '/apps?limit=100'), api('GET', '/credits')]);
    if (apps.status !== 200) throw new Error(errorText(apps));
    const out = h('p', { role: 'status', class: 'outcome' });
    const c = credits.status === 200 ? credits.body : null;
    fill(
      box,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'apps-title' },
        h('h2', { id: 'apps-title' }, 'Apps'),
        c
          ? h(
              'p',
              { class: 'muted', id: 'credits' },
              'MCP credits this cycle (' +
                c.plan +
                '): ' +
                c.used +
                ' used' +
                (c.allowance === null ? ', not metered' : ' of ' + c.allowance) +
                ', until ' +
                when(c.cycleEnd),
            )
          : null,
        h(
          'ul',
          { class: 'decide' },
          apps.body.data.map((a) =>
            h(
              'li',
              { dataset: { slug: a.slug } },
              h(
                'span',
                { class: 'address' },
                h('strong', {}, a.name),
                ' ',
                badge(a.installed ? 'installed' : 'not_installed'),
                ' ',
                h('span', { class: 'muted' }, a.description),
              ),
              h(
                'span',
                { class: 'small-actions' },
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': (a.installed ? 'Uninstall ' : 'Install ') + a.name,
                    onclick: async () => {
                      const r = await api(a.installed ? 'DELETE' : 'PUT', '/apps/' + encodeURIComponent(a.slug));
                      if (r.status !== 200) return (out.textContent = errorText(r));
                      await drawApps(box);
                    },
                  },
                  a.installed ? 'Uninstall' : 'Install',
                ),
              ),
            ),
          ),
        ),
        out,
      ),
    );
  }

  /**
   * An agent's model (PATCH {"model"}: an OpenAI-compatible server; empty fields clear it, back to
   * the server's default) and its secrets (keys and whether set, never values; PUT sets, DELETE clears).
   */
  async function agentSettings(a, box, afterModel) {
    const path = '/agents/' + encodeURIComponent(a.uuid);
    const { form: modelForm, inputs } = smallForm(
      'model',
      'Model of ' + a.name,
      [
        { name: 'baseUrl', label: 'OpenAI-compatible base URL (empty: the server default)', type: 'url' },
        { name: 'name', label: 'Model name' },
      ],
      'Save model',
      async (v) => {
        const res = await api('PATCH', path, {
          model: { baseUrl: v.baseUrl.trim() || null, name: v.name.trim() || null },
        });
        if (res.status !== 200) return errorText(res);
        await afterModel();
        return 'Saved. Its key, if the server needs one, is the secret AI_API_KEY.';
      },
    );
    inputs.baseUrl.value = (a.model && a.model.baseUrl) || '';
    inputs.name.value = (a.model && a.model.name) || '';
    const secretsBox = h('div', { id: 'agent-secrets' });
    const drawSecrets = async () => {
      const secrets = await api('GET', path + '/secrets?limit=100');
      if (secrets.status !== 200) return setStatus(errorText(secrets));
      fill(
        secretsBox,
        table(
          ['Key', 'Set', 'Updated', ''],
          secrets.body.data.map((x) =>
            h(
              'tr',
              { dataset: { key: x.key } },
              h('td', {}, x.key),
              h('td', {}, x.set ? 'yes' : 'no'),
              h('td', {}, x.updatedAt ? when(x.updatedAt) : ''),
              h(
                'td',
                {},
                x.set
                  ? deleteButton({
                      text: 'Clear',
                      label: 'Clear ' + x.key,
                      path: path + '/secrets/' + encodeURIComponent(x.key),
                      ok: 200,
                      after: drawSecrets,
                    })
                  : '',
              ),
            ),
          ),
          'No secrets.',
          'Secrets',
        ),
      );
    };
    const { form: secretForm } = smallForm(
      'secret',
      'Set a secret',
      [
        { name: 'key', label: 'Key (UPPER_SNAKE_CASE, e.g. AI_API_KEY)', required: true },
        { name: 'value', label: 'Value (stored encrypted, never shown again)', type: 'password', required: true },
      ],
      'Set secret',
      async (v) => {
        const res = await api('PUT', path + '/secrets/' + encodeURIComponent(v.key.trim()), { value: v.value });
        if (res.status !== 200) return errorText(res);
        await drawSecrets();
        return { text: 'Set ' + v.key.trim() + '.', done: true };
      },
    );
    await drawSecrets();
    fill(
      box,
      modelForm,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'secrets-title' },
        h('h2', { id: 'secrets-title' }, 'Secrets of ' + a.name),
        secretsBox,
      ),
      secretForm,
    );
    box.scrollIntoView({ block: 'nearest' });
  }

  function agentsPage() {
    const list = h('div', { class: 'cards', id: 'agent-list' });
    const settings = h('div', { id: 'agent-settings' });
    const appsBox = h('div', { id: 'apps' });
    content.replaceChildren(list, settings, appsBox);
    void drawApps(appsBox).catch((err) => setStatus(err.message));
    const refresh = async () => {
      const res = await api('GET', '/agents?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      const integrations = await Promise.all(
        res.body.data.map((a) => api('GET', '/agents/' + encodeURIComponent(a.uuid) + '/integrations')),
      );
      list.replaceChildren(
        ...res.body.data.map((a, i) => {
          const outcome = h('p', { role: 'status', class: 'outcome' });
          const set = (method, path, body, done) => async () => {
            const r = await api(method, '/agents/' + encodeURIComponent(a.uuid) + path, body);
            outcome.textContent = r.status === 200 ? done : errorText(r);
            if (r.status === 200) await refresh();
          };
          const channels = integrations[i].status === 200 ? integrations[i].body.data : [];
          return h(
            'article',
            { class: 'card', dataset: { id: a.uuid }, 'aria-labelledby': 'title-' + a.uuid },
            h('h3', { id: 'title-' + a.uuid }, a.name),
            facts([
              ['Mode', a.mode === 'manual' ? 'manual: sensitive writes wait for approval' : 'auto: writes run at once'],
              ['Model', a.model && a.model.name ? a.model.name : 'the server default (offline when none)'],
              [
                'Channels',
                channels.length
                  ? channels
                      .map(
                        (c) => (CHANNELS[c.channel] || c.channel) + ' via ' + c.provider + (c.active ? '' : ' (off)'),
                      )
                      .join(', ')
                  : 'none',
              ],
            ]),
            h(
              'div',
              { class: 'actions' },
              h(
                'button',
                {
                  type: 'button',
                  onclick: set('PATCH', '', { mode: a.mode === 'manual' ? 'auto' : 'manual' }, 'Mode changed.'),
                },
                a.mode === 'manual' ? 'Switch to auto' : 'Switch to manual',
              ),
              h(
                'button',
                {
                  type: 'button',
                  onclick: set(
                    'PUT',
                    '/integrations/email',
                    { provider: 'sandbox' },
                    'Email goes to the sandbox outbox.',
                  ),
                },
                'Email through the sandbox',
              ),
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Model and secrets of ' + a.name,
                  onclick: () => void agentSettings(a, settings, refresh),
                },
                'Model and secrets…',
              ),
              h('a', { class: 'button', href: '/app/hooks?agent=' + encodeURIComponent(a.uuid) }, 'Hooks and keys'),
            ),
            outcome,
          );
        }),
      );
      setStatus(count(res.body.data.length, 'agent'));
    };
    void refresh().catch((err) => setStatus(err.message));
  }

  function contactsPage() {
    const list = h('div', { id: 'contact-list' });
    const { form } = smallForm(
      'contact',
      'New contact',
      [
        { name: 'name', label: 'Name', required: true },
        { name: 'email', label: 'Email', type: 'email' },
        { name: 'phone', label: 'Phone' },
        { name: 'tags', label: 'Tags (comma separated)' },
        { name: 'consent', label: 'Agreed to marketing messages', type: 'checkbox' },
      ],
      'Add contact',
      async (v) => {
        const created = await api('POST', '/contacts', {
          name: v.name.trim(),
          ...(v.email.trim() ? { email: v.email.trim() } : {}),
          ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
          tags: v.tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        });
        if (created.status !== 201) return errorText(created);
        if (v.consent) {
          const consent = await api('PATCH', '/contacts/' + encodeURIComponent(created.body.id), {
            marketingConsent: 'granted',
            consentSource: 'console',
          });
          if (consent.status !== 200) return errorText(consent);
        }
        await refresh();
        return { text: 'Added ' + created.body.name + '.', done: true };
      },
    );
    const editPanel = h('div', { id: 'contact-edit' });
    /** A contact's addresses and tags, changed with PATCH (a contact a send skipped for want of an address gets one here). */
    const editForm = (c) => {
      const { form: f, inputs } = smallForm(
        'edit',
        'Change ' + (c.name || c.email || c.id),
        [
          { name: 'email', label: 'New email', type: 'email' },
          { name: 'phone', label: 'New phone' },
          { name: 'tags', label: 'Tags (comma separated), replacing the current ones' },
        ],
        'Save',
        async (v) => {
          const tagList = v.tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean);
          const res = await api('PATCH', '/contacts/' + encodeURIComponent(c.id), {
            ...(v.email.trim() ? { email: v.email.trim() } : {}),
            ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
            ...(v.tags.trim() ? { tags: tagList } : {}),
          });
          if (res.status !== 200) return errorText(res);
          await contacts.refresh();
          return 'Saved.';
        },
      );
      inputs.email.value = c.email || '';
      inputs.phone.value = c.phone || '';
      inputs.tags.value = (c.tags || []).join(', ');
      return f;
    };
    const contacts = pagedList('Contacts', '/contacts', 50, (items) =>
      table(
        ['Name', 'Email', 'Phone', 'Tags', 'Marketing', ''],
        items.map((c) =>
          h(
            'tr',
            { dataset: { id: c.id } },
            h('td', {}, c.name || ''),
            h('td', {}, c.email || ''),
            h('td', {}, c.phone || ''),
            h('td', {}, (c.tags || []).join(', ')),
            h('td', {}, c.optedOut ? 'opted out' : c.marketingConsent),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Change ' + (c.name || c.email || c.id),
                  onclick: () => {
                    fill(editPanel, editForm(c));
                    editPanel.scrollIntoView({ block: 'nearest' });
                  },
                },
                'Change…',
              ),
            ),
          ),
        ),
        'No contacts yet.',
        'Contacts',
      ),
    );
    list.append(contacts.el);
    content.replaceChildren(list, editPanel, form);
    const refresh = async () => {
      const res = await contacts.refresh();
      setStatus(count(res.body.data.length, 'contact') + ' on this page');
    };
    void refresh().catch((err) => setStatus(err.message));
  }

  const ARTIFACT_TYPES = ['agreement', 'offer', 'concept', 'update', 'demo', 'file', 'other'];

  async function artifactsPage() {
    const contacts = (await api('GET', '/contacts?limit=100')).body.data || [];
    const contactName = new Map(contacts.map((c) => [c.id, c.name || c.email || c.id]));
    const list = h('div', { id: 'artifact-list' });
    const panel = h('div', { id: 'deliver-panel' });
    const { form } = smallForm(
      'artifact',
      'New artifact',
      [
        { name: 'title', label: 'Title', required: true },
        { name: 'type', label: 'Type', type: 'select', options: ARTIFACT_TYPES.map((t) => [t, t]) },
        { name: 'url', label: 'Link', type: 'url' },
        { name: 'file', label: 'Attach a file (optional)', type: 'file' },
        {
          name: 'contactId',
          label: 'For contact',
          type: 'select',
          options: [['', '(none yet)'], ...contacts.map((c) => [c.id, contactName.get(c.id)])],
        },
      ],
      'Create draft',
      async (v) => {
        // The file first (POST /v1/media), then the artifact that names it, as the delivery walk-through does.
        let media = [];
        if (v.file && v.file.length) {
          const uploaded = await upload('/media', v.file[0]);
          if (uploaded.status !== 201) return errorText(uploaded);
          media = [uploaded.body.id];
        }
        const res = await api('POST', '/artifacts', {
          title: v.title.trim(),
          type: v.type,
          ...(media.length ? { media } : {}),
          ...(v.url.trim() ? { url: v.url.trim() } : {}),
          ...(v.contactId ? { contactId: v.contactId } : {}),
        });
        if (res.status !== 201) return errorText(res);
        await refresh();
        return { text: 'Created ' + res.body.title + '.', done: true };
      },
    );
    const deliverForm = (artifact) => {
      const { form: f } = smallForm(
        'deliver',
        'Deliver “' + artifact.title + '”',
        [
          {
            name: 'integration',
            label: 'Channel',
            type: 'select',
            options: [
              ['email', 'Email'],
              ['sms', 'SMS'],
              ['whatsapp', 'WhatsApp'],
            ],
          },
          { name: 'subject', label: 'Subject' },
          { name: 'message', label: 'Message', type: 'textarea', required: true },
        ],
        'Deliver',
        async (v) => {
          const res = await api('POST', '/artifacts/deliver', {
            artifactIds: [artifact.id],
            integration: v.integration,
            message: v.message,
            ...(v.subject.trim() ? { subject: v.subject.trim() } : {}),
          });
          await refresh();
          if (res.status === 202 && res.body.pending) return 'Waiting for approval: see Approvals.';
          return res.status === 200 || res.status === 202 ? 'Sent.' : errorText(res);
        },
      );
      return f;
    };
    content.replaceChildren(list, panel, form);
    const artifacts = pagedList('Artifacts', '/artifacts', 25, (items) =>
      table(
        ['Title', 'Type', 'For', 'Files', 'Status', 'Delivered', ''],
        items.map((a) =>
          h(
            'tr',
            { dataset: { id: a.id } },
            h('td', {}, a.url ? h('a', { href: a.url, rel: 'noopener noreferrer' }, a.title) : a.title),
            h('td', {}, a.type),
            h('td', {}, a.contactId ? contactName.get(a.contactId) || a.contactId : ''),
            h('td', {}, (a.media || []).map((m) => m.filename).join(', ')),
            h('td', {}, badge(a.status)),
            h('td', {}, a.deliveredAt ? when(a.deliveredAt) : ''),
            h(
              'td',
              {},
              a.status === 'draft'
                ? h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': 'Mark ' + a.title + ' ready',
                      onclick: async () => {
                        const r = await api('PATCH', '/artifacts/' + encodeURIComponent(a.id), { status: 'ready' });
                        if (r.status !== 200) setStatus(errorText(r));
                        await refresh();
                      },
                    },
                    'Mark ready',
                  )
                : a.status === 'ready'
                  ? h(
                      'button',
                      {
                        type: 'button',
                        'aria-label': 'Deliver ' + a.title,
                        onclick: () => panel.replaceChildren(deliverForm(a)),
                      },
                      'Deliver…',
                    )
                  : '',
            ),
          ),
        ),
        'No artifacts yet.',
        'Artifacts',
      ),
    );
    list.append(artifacts.el);
    const refresh = async () => {
      const res = await artifacts.refresh();
      setStatus(count(res.body.data.length, 'artifact') + ' on this page');
    };
    await refresh();
  }

  // ---------------------------------------------------------------- Shared: paging, secrets shown once, form lines

  /** `path` with the API's keyset paging: `limit`, and the `cursor` of the page asked for. */
  const pagePath = (path, limit, cursor) =>
    path +
    (path.includes('?') ? '&' : '?') +
    'limit=' +
    limit +
    (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');

  /**
   * A list in pages, over the API's own cursors (`pagination.nextCursor`): Previous / Next buttons,
   * and `refresh()` reloads the page being shown (what a poll calls). `draw(items)` answers its content.
   */
  function pagedList(label, path, limit, draw) {
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

  /** A secret the API answers once (a signing secret, a key, a token): shown here, never again. */
  function shownOnce(id, what, secret) {
    const copy = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(secret);
            copy.textContent = 'Copied';
          } catch (_err) {
            copy.textContent = 'Copy it by hand';
          }
        },
      },
      'Copy',
    );
    return h(
      'div',
      { class: 'secret', role: 'status' },
      h(
        'p',
        {},
        h('strong', {}, what),
        ': shown only now. Copy it and keep it safe; the console cannot show it again.',
      ),
      h('code', { id }, secret),
      h('div', { class: 'actions' }, copy),
    );
  }

  /** `name=value` lines (placeholders, mappings, inputs) as an object; blank lines are skipped. */
  function pairs(text) {
    const out = {};
    for (const line of text.split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    return out;
  }
  const pairLines = (obj) =>
    Object.entries(obj || {})
      .map(([k, v]) => k + '=' + (typeof v === 'string' ? v : JSON.stringify(v)))
      .join('\n');

  /**
   * Segment conditions written one per line, `type value` (`tag newsletter`, `has_email`,
   * `order_count_at_least 2`): the value is read as the condition type takes it (its kind comes
   * from services/contacts/segments.ts through the page's vocabulary); the API checks the rest.
   */
  function conditionsOf(text) {
    const kinds = new Map(vocabulary.conditionTypes.map((c) => [c.type, c.value]));
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const space = line.indexOf(' ');
        const type = space < 0 ? line : line.slice(0, space);
        const raw = space < 0 ? '' : line.slice(space + 1).trim();
        const kind = kinds.get(type);
        if (kind === 'none' || raw === '') return { type };
        if (kind === 'number') return { type, value: Number(raw) };
        if (kind === 'boolean') return { type, value: raw === 'true' || raw === 'yes' };
        return { type, value: raw };
      });
  }
  const conditionText = (c) => c.type + (c.value === undefined ? '' : ' ' + c.value);

  /** A labelled field: [label, control]. */
  const field = (id, label, control) => [h('label', { for: id }, label), control];
  const options = (pairsList, selected) =>
    pairsList.map(([value, label]) => h('option', { value, selected: value === selected }, label));

  // ---------------------------------------------------------------- Webhooks (outbound endpoints)

  function deliveriesTable(items) {
    return table(
      ['Event', 'Status', 'Attempts', 'Last answer', 'Delivered', 'Next attempt'],
      items.map((d) =>
        h(
          'tr',
          { dataset: { id: d.id } },
          h('td', {}, d.eventType),
          h('td', {}, badge(d.status)),
          h('td', {}, String(d.attempts)),
          h('td', {}, d.lastStatusCode ? 'HTTP ' + d.lastStatusCode : d.lastError || ''),
          h('td', {}, d.deliveredAt ? when(d.deliveredAt) : ''),
          h('td', {}, d.nextAttemptAt ? when(d.nextAttemptAt) : ''),
        ),
      ),
      'Nothing delivered yet.',
      'Deliveries',
    );
  }

  function webhooksPage() {
    const list = h('div', { class: 'cards', id: 'endpoint-list' });
    const created = h('div', { id: 'endpoint-created' });
    const url = h('input', {
      type: 'url',
      id: 'endpoint-url',
      required: true,
      placeholder: 'https://example.com/hooks',
    });
    const description = h('input', { type: 'text', id: 'endpoint-description', maxlength: 500 });
    const secret = h('input', {
      type: 'text',
      id: 'endpoint-secret',
      placeholder: 'whsec_… (empty: one is made for you)',
      autocomplete: 'off',
    });
    const typeBoxes = vocabulary.webhookEventTypes.map((t) =>
      h('input', { type: 'checkbox', value: t, id: 'event-' + t }),
    );
    const outcome = h('p', { role: 'status', class: 'outcome' });
    const form = h(
      'form',
      {
        class: 'card',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const eventTypes = typeBoxes.filter((b) => b.checked).map((b) => b.value);
          const res = await api('POST', '/webhooks/endpoints', {
            url: url.value.trim(),
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
            ...(secret.value.trim() ? { secret: secret.value.trim() } : {}),
            ...(eventTypes.length ? { eventTypes } : {}),
          });
          if (res.status !== 201) return (outcome.textContent = errorText(res));
          outcome.textContent = 'Added ' + res.body.url + '.';
          fill(created, shownOnce('endpoint-secret-value', 'Signing secret of ' + res.body.url, res.body.secret));
          form.reset();
          await refresh();
        },
      },
      h('h2', {}, 'New endpoint'),
      h(
        'p',
        { class: 'muted' },
        'Every platform event of the team is POSTed to it, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
      ),
      field('endpoint-url', 'URL', url),
      field('endpoint-description', 'Description', description),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Events it receives (none ticked: every event)'),
        typeBoxes.map((b) => h('label', { for: b.id, class: 'check' }, b, ' ', b.value)),
      ),
      field('endpoint-secret', 'Signing secret (optional)', secret),
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Add endpoint')),
      outcome,
    );
    content.replaceChildren(created, list, form);

    const deliveryLists = new Map();
    const endpointCard = (e) => {
      const out = h('p', { role: 'status', class: 'outcome' });
      const secretSlot = h('div', {});
      const deliveries = pagedList(
        'Deliveries to ' + e.url,
        '/webhooks/endpoints/' + encodeURIComponent(e.id) + '/deliveries',
        10,
        deliveriesTable,
      );
      deliveryLists.set(e.id, deliveries);
      const patch = async (body, done) => {
        const r = await api('PATCH', '/webhooks/endpoints/' + encodeURIComponent(e.id), body);
        if (r.status !== 200) return (out.textContent = errorText(r));
        out.textContent = done;
        if (r.body.secret) fill(secretSlot, shownOnce('rotated-secret-' + e.id, 'New signing secret', r.body.secret));
        else await refresh();
      };
      let confirming = false;
      const del = h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: async () => {
            if (!confirming) {
              confirming = true;
              del.textContent = 'Really delete, with its history?';
              return;
            }
            const r = await api('DELETE', '/webhooks/endpoints/' + encodeURIComponent(e.id));
            if (r.status !== 204) return (out.textContent = errorText(r));
            await refresh();
          },
        },
        'Delete',
      );
      return h(
        'article',
        { class: 'card', dataset: { id: e.id }, 'aria-labelledby': 'title-' + e.id },
        h('h3', { id: 'title-' + e.id }, e.url),
        h('p', {}, badge(e.enabled ? 'enabled' : 'disabled')),
        facts([
          ['Description', e.description],
          ['Events', e.eventTypes.length ? e.eventTypes.join(', ') : 'every event'],
          ['Extra headers', Object.keys(e.headers || {}).join(', ')],
          ['Added', when(e.createdAt)],
        ]),
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            { type: 'button', onclick: () => patch({ enabled: !e.enabled }, e.enabled ? 'Disabled.' : 'Enabled.') },
            e.enabled ? 'Disable' : 'Enable',
          ),
          h(
            'button',
            { type: 'button', onclick: () => patch({ secret: 'rotate' }, 'The old secret no longer signs.') },
            'New secret',
          ),
          del,
        ),
        out,
        secretSlot,
        h('h4', {}, 'Deliveries'),
        deliveries.el,
      );
    };
    const refresh = async () => {
      const res = await api('GET', '/webhooks/endpoints?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      deliveryLists.clear();
      fill(
        list,
        res.body.data.length ? res.body.data.map(endpointCard) : h('p', { class: 'muted' }, 'No endpoints yet.'),
      );
      await Promise.all([...deliveryLists.values()].map((d) => d.refresh()));
      setStatus(count(res.body.data.length, 'endpoint'));
    };
    void refresh()
      .then(() =>
        // Deliveries arrive and retry in the background: follow them without redrawing the cards.
        every(3000, async () => {
          await Promise.all([...deliveryLists.values()].map((d) => d.refresh()));
        }),
      )
      .catch((err) => setStatus(err.message));
  }

  // ---------------------------------------------------------------- Hooks and AGENT_AUTH_KEYs

  async function hooksPage() {
    const names = await agents();
    const wanted = new URLSearchParams(window.location.search).get('agent');
    const agentSelect = h(
      'select',
      { id: 'hooks-agent' },
      options([...names], names.has(wanted) ? wanted : [...names.keys()][0]),
    );
    const keysBox = h('div', { id: 'auth-keys' });
    const rulesBox = h('div', { id: 'hook-rules' });
    content.replaceChildren(
      h('div', { class: 'toolbar' }, h('div', {}, field('hooks-agent', 'Agent', agentSelect))),
      keysBox,
      rulesBox,
    );
    const agentPath = () => '/agents/' + encodeURIComponent(agentSelect.value);

    const drawKeys = async () => {
      const agentId = agentSelect.value;
      const res = await api('GET', agentPath() + '/auth-keys?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      const shown = h('div', { id: 'auth-key-created' });
      const out = h('p', { role: 'status', class: 'outcome' });
      const hookUrl = vocabulary.apiBaseUrl + '/agents/' + agentId + '/hooks';
      fill(
        keysBox,
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'keys-title' },
          h('h2', { id: 'keys-title' }, 'AGENT_AUTH_KEYs'),
          h(
            'p',
            {},
            'External systems and runtimes call the agent hooks path with one of these keys: ',
            h('code', { id: 'hook-url' }, 'POST ' + hookUrl + '?source=<source>'),
            ' with ',
            h('code', {}, 'Authorization: Bearer ak_…'),
            '.',
          ),
          table(
            ['Key', 'Created', 'Last used', ''],
            res.body.data.map((k) =>
              h(
                'tr',
                { dataset: { id: k.id } },
                h('td', {}, k.prefix + '…'),
                h('td', {}, when(k.createdAt)),
                h('td', {}, k.lastUsedAt ? when(k.lastUsedAt) : 'never'),
                h(
                  'td',
                  {},
                  deleteButton({
                    text: 'Revoke',
                    label: 'Revoke key ' + k.prefix,
                    path: agentPath() + '/auth-keys/' + encodeURIComponent(k.id),
                    ok: 204,
                    after: drawKeys,
                    report: (text) => (out.textContent = text),
                  }),
                ),
              ),
            ),
            'No keys yet.',
            'AGENT_AUTH_KEYs',
          ),
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'primary',
                onclick: async () => {
                  const r = await api('POST', agentPath() + '/auth-keys');
                  if (r.status !== 201) return (out.textContent = errorText(r));
                  await drawKeys();
                  fill(
                    keysBox.querySelector('#auth-key-created'),
                    shownOnce('auth-key-value', 'AGENT_AUTH_KEY ' + r.body.prefix, r.body.key),
                  );
                },
              },
              'Create key',
            ),
          ),
          out,
          shown,
        ),
      );
    };

    const source = h('select', { id: 'rule-source' }, options(vocabulary.hookSources.map((s) => [s, s])));
    const eventInput = h('input', { type: 'text', id: 'rule-event', required: true, list: 'rule-events' });
    const eventList = h(
      'datalist',
      { id: 'rule-events' },
      [...vocabulary.webhookEventTypes, ...vocabulary.webHookEvents]
        .filter((v, i, all) => all.indexOf(v) === i)
        .map((e) => h('option', { value: e })),
    );
    const warp = h('input', { type: 'text', id: 'rule-warp', placeholder: 'a built-in or private warp' });
    const inputs = h('textarea', { id: 'rule-inputs', placeholder: 'name=value' });
    const mapping = h('textarea', { id: 'rule-mapping', placeholder: 'email=$.user.email' });
    const url = h('input', { type: 'url', id: 'rule-url', placeholder: 'https://…' });
    const ruleOut = h('p', { role: 'status', class: 'outcome' });
    const ruleSecret = h('div', {});
    const ruleForm = h(
      'form',
      {
        class: 'card',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const web = source.value === 'web';
          const res = await api('POST', agentPath() + '/hook-rules', {
            source: source.value,
            event: eventInput.value.trim(),
            ...(web ? { url: url.value.trim() } : { warp: warp.value.trim() }),
            ...(!web && inputs.value.trim() ? { inputs: pairs(inputs.value) } : {}),
            ...(mapping.value.trim() ? { mapping: pairs(mapping.value) } : {}),
          });
          if (res.status !== 201) return (ruleOut.textContent = errorText(res));
          ruleOut.textContent = 'Created the ' + res.body.hook.source + ' hook on ' + res.body.hook.event + '.';
          fill(ruleSecret, res.body.secret ? shownOnce('hook-secret-value', 'Signing secret', res.body.secret) : null);
          ruleForm.reset();
          await rules.refresh();
        },
      },
      h('h2', {}, 'New hook'),
      h(
        'p',
        { class: 'muted' },
        'internal: a platform event runs the warp; inbound: a POST to the hooks path with ?source=<event> runs it; web: the agent’s output events are POSTed, signed, to the URL.',
      ),
      field('rule-source', 'Kind', source),
      field('rule-event', 'Event (a platform event, an inbound source name, or an agent output event)', eventInput),
      eventList,
      field('rule-warp', 'Warp (internal, inbound)', warp),
      field('rule-inputs', 'Warp inputs, one per line: name=value', inputs),
      field('rule-mapping', 'Mapping, one per line: input=$.payload.path', mapping),
      field('rule-url', 'URL (web)', url),
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Create hook')),
      ruleOut,
      ruleSecret,
    );
    const drawRules = (items) =>
      table(
        ['Kind', 'Event', 'Runs', 'State', 'Owner', ''],
        items.map((r) =>
          h(
            'tr',
            { dataset: { id: r.id } },
            h('td', {}, r.source),
            h('td', {}, r.event),
            h('td', {}, r.url || r.warp || ''),
            h('td', {}, badge(r.enabled ? 'enabled' : 'disabled')),
            h(
              'td',
              {},
              r.automationId
                ? h('a', { href: '/app/automations/' + encodeURIComponent(r.automationId) }, 'an automation')
                : 'the team',
            ),
            h(
              'td',
              {},
              // A system-owned hook follows its automation (the API answers 422 system_owned_hook).
              r.systemOwned
                ? h('span', { class: 'muted' }, 'switched with its automation')
                : h(
                    'span',
                    { class: 'small-actions' },
                    h(
                      'button',
                      {
                        type: 'button',
                        'aria-label': (r.enabled ? 'Disable' : 'Enable') + ' hook ' + r.event,
                        onclick: async () => {
                          const x = await api('PATCH', agentPath() + '/hook-rules/' + encodeURIComponent(r.id), {
                            enabled: !r.enabled,
                          });
                          if (x.status !== 200) setStatus(errorText(x));
                          await rules.refresh();
                        },
                      },
                      r.enabled ? 'Disable' : 'Enable',
                    ),
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'aria-label': 'Delete hook ' + r.event,
                        onclick: async () => {
                          const x = await api('DELETE', agentPath() + '/hook-rules/' + encodeURIComponent(r.id));
                          if (x.status !== 204) setStatus(errorText(x));
                          await rules.refresh();
                        },
                      },
                      'Delete',
                    ),
                  ),
            ),
          ),
        ),
        'No hooks yet.',
        'Hooks',
      );
    const rules = pagedList('Hooks', agentPath() + '/hook-rules', 25, drawRules);
    fill(
      rulesBox,
      h('section', { 'aria-labelledby': 'rules-title' }, h('h2', { id: 'rules-title' }, 'Hooks'), rules.el),
      ruleForm,
    );
    const load = async () => {
      await Promise.all([drawKeys(), rules.restart(agentPath() + '/hook-rules')]);
      setStatus('Agent ' + (names.get(agentSelect.value) || agentSelect.value));
    };
    agentSelect.addEventListener('change', () => void load().catch((err) => setStatus(err.message)));
    await load();
  }

  // ---------------------------------------------------------------- Automations: create, and one automation

  /** The steps' editors: one fieldset per step, fields by step type, read back as the API's step objects. */
  function stepsEditor() {
    const box = h('div', { class: 'steps-editor', id: 'steps-editor' });
    const editors = [];
    let made = 0;
    const renumber = () =>
      editors.forEach((e, i) => {
        e.legend.textContent = 'Step ' + (i + 1) + ': ' + e.type;
      });
    const add = (type) => {
      const k = ++made;
      const id = (name) => 'step-' + k + '-' + name;
      const inputs = {};
      const text = (name, label, attrs) => {
        inputs[name] = h('input', Object.assign({ type: 'text', id: id(name) }, attrs || {}));
        return field(id(name), label, inputs[name]);
      };
      const area = (name, label, attrs) => {
        inputs[name] = h('textarea', Object.assign({ id: id(name) }, attrs || {}));
        return field(id(name), label, inputs[name]);
      };
      const choose = (name, label, values) => {
        inputs[name] = h('select', { id: id(name) }, options(values.map((v) => [v, CHANNELS[v] || v])));
        return field(id(name), label, inputs[name]);
      };
      const target = '(a step label, or a step number counting from 0)';
      const fields = {
        wait: () => text('duration', 'Duration (90s, 10m, 2h, 1d)', { required: true }),
        waitForEvent: () => [
          choose('event', 'Event about the contact', vocabulary.contactEvents),
          text('timeout', 'At most (a duration)', { required: true }),
          text('onTimeout', 'Then, if it did not come, go to ' + target),
        ],
        send: () => [
          choose('channel', 'Channel', ['email', 'sms', 'push']),
          text('subject', 'Subject'),
          area('content', 'Message ({{placeholder}} allowed)', { required: true }),
          area('templateParams', 'Placeholders, one per line: name=contact.firstName or a literal'),
        ],
        runWarp: () => [text('warp', 'Warp', { required: true }), area('inputs', 'Inputs, one per line: name=value')],
        branch: () => [
          choose('match', 'The contact matches', ['all', 'any']),
          area('conditions', 'Conditions, one per line (tag vip, has_email, …)', { required: true }),
          text('then', 'If so, go to ' + target, { required: true }),
          text('else', 'Otherwise go to ' + target + '; empty: the next step'),
        ],
        exit: () => [],
      }[type];
      const legend = h('legend', {});
      const remove = h(
        'button',
        {
          type: 'button',
          onclick: () => {
            editors.splice(editors.indexOf(editor), 1);
            set.remove();
            renumber();
          },
        },
        'Remove step',
      );
      const set = h(
        'fieldset',
        { class: 'step', dataset: { type } },
        legend,
        fields ? fields() : [],
        text('label', 'Label (optional: a name other steps go to)'),
        h('div', { class: 'actions' }, remove),
      );
      const targetOf = (v) => (/^\d+$/.test(v) ? Number(v) : v);
      const editor = {
        type,
        legend,
        read() {
          const v = (name) => (inputs[name] ? inputs[name].value.trim() : '');
          const step = { type };
          if (type === 'wait') step.duration = v('duration');
          if (type === 'waitForEvent') {
            Object.assign(step, { event: v('event'), timeout: v('timeout') });
            if (v('onTimeout')) step.onTimeout = targetOf(v('onTimeout'));
          }
          if (type === 'send') {
            Object.assign(step, { channel: v('channel'), content: inputs.content.value });
            if (v('subject')) step.subject = v('subject');
            if (v('templateParams')) step.templateParams = pairs(inputs.templateParams.value);
          }
          if (type === 'runWarp') {
            step.warp = v('warp');
            if (v('inputs')) step.inputs = pairs(inputs.inputs.value);
          }
          if (type === 'branch') {
            step.if = { match: v('match'), conditions: conditionsOf(inputs.conditions.value) };
            step.then = targetOf(v('then'));
            if (v('else')) step.else = targetOf(v('else'));
          }
          if (v('label')) step.label = v('label');
          return step;
        },
      };
      editors.push(editor);
      box.append(set);
      renumber();
    };
    const kind = h('select', { id: 'add-step-type' }, options(vocabulary.stepTypes.map((t) => [t, t])));
    const controls = h(
      'div',
      { class: 'toolbar' },
      h('div', {}, field('add-step-type', 'Next step', kind)),
      h('div', {}, h('button', { type: 'button', onclick: () => add(kind.value) }, 'Add step')),
    );
    return {
      el: h('div', {}, box, controls),
      read: () => editors.map((e) => e.read()),
      clear() {
        editors.length = 0;
        box.replaceChildren();
      },
    };
  }

  function describeTrigger(t) {
    if (t.kind === 'inbound') return 'inbound webhook, source ' + t.source;
    if (t.kind === 'event') return 'platform event ' + t.event;
    if (t.kind === 'segment') return 'entering segment ' + t.segmentId;
    return t.kind;
  }

  async function automationForm() {
    const [names, segments] = await Promise.all([agents(), api('GET', '/segments?limit=100')]);
    const segmentList = segments.status === 200 ? segments.body.data : [];
    const name = h('input', { type: 'text', id: 'automation-name', required: true, maxlength: 200 });
    const agent = h('select', { id: 'automation-agent' }, options([...names]));
    const kind = h(
      'select',
      { id: 'trigger-kind' },
      options([
        ['inbound', 'An inbound webhook (a form, another system)'],
        ['event', 'A platform event about a contact'],
        ['segment', 'A contact entering a segment'],
      ]),
    );
    const sourceName = h('input', { type: 'text', id: 'trigger-source', placeholder: 'signup' });
    const mapping = h('textarea', {
      id: 'trigger-mapping',
      placeholder: 'email=$.user.email\nname=$.user.name',
    });
    const event = h('select', { id: 'trigger-event' }, options(vocabulary.contactEvents.map((e) => [e, e])));
    const segment = h('select', { id: 'trigger-segment' }, options(segmentList.map((s) => [s.id, s.name])));
    const parts = {
      inbound: h(
        'div',
        {},
        field('trigger-source', 'Source name (?source= of the hooks URL)', sourceName),
        field(
          'trigger-mapping',
          'Mapping, one per line: field=$.payload.path (fields: ' + vocabulary.enrollFields.join(', ') + ')',
          mapping,
        ),
      ),
      event: h('div', { hidden: true }, field('trigger-event', 'Event', event)),
      segment: h(
        'div',
        { hidden: true },
        segmentList.length
          ? field('trigger-segment', 'Segment', segment)
          : h('p', { class: 'muted' }, 'No segments yet: make one on the Segments page.'),
      ),
    };
    kind.addEventListener('change', () => {
      for (const [k, el] of Object.entries(parts)) el.hidden = k !== kind.value;
    });
    const steps = stepsEditor();
    const outcome = h('p', { role: 'status', class: 'outcome' });
    const form = h(
      'form',
      {
        class: 'card wide',
        id: 'automation-form',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const trigger =
            kind.value === 'inbound'
              ? {
                  kind: 'inbound',
                  source: sourceName.value.trim(),
                  ...(mapping.value.trim() ? { mapping: pairs(mapping.value) } : {}),
                }
              : kind.value === 'event'
                ? { kind: 'event', event: event.value }
                : { kind: 'segment', segmentId: segment.value };
          const res = await api('POST', '/automations', {
            name: name.value.trim(),
            agentId: agent.value,
            trigger,
            steps: steps.read(),
          });
          if (res.status === 201) window.location.assign('/app/automations/' + encodeURIComponent(res.body.id));
          else outcome.textContent = errorText(res);
        },
      },
      h('h2', {}, 'New automation'),
      field('automation-name', 'Name', name),
      field('automation-agent', 'Agent (it sends and runs the warps)', agent),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Trigger'),
        field('trigger-kind', 'Enroll a contact on', kind),
        Object.values(parts),
      ),
      h('h3', {}, 'Steps'),
      steps.el,
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Create automation')),
      outcome,
    );
    return form;
  }

  /** An automation's steps, each with how many enrollments are at it now (GET …/step-counts). */
  function stepsWithCounts(a, rows) {
    const at = (step) => rows.filter((r) => r.version === a.version && r.step === step);
    const sum = (rs, k) => rs.reduce((n, r) => n + r[k], 0);
    return h(
      'ol',
      { class: 'steps', start: 0 },
      a.steps.map((step, n) => {
        const here = at(n);
        return h(
          'li',
          { dataset: { step: String(n) } },
          describeStep(step),
          ' — ',
          h('strong', { class: 'here' }, String(sum(here, 'active'))),
          ' here',
          sum(here, 'exited') ? ', ' + sum(here, 'exited') + ' exited here' : '',
          sum(here, 'failed') ? ', ' + sum(here, 'failed') + ' failed here' : '',
        );
      }),
    );
  }
  const enrollmentTotals = (rows) => {
    const total = (k) => rows.reduce((n, r) => n + r[k], 0);
    return (
      'Enrollments: ' +
      total('active') +
      ' active, ' +
      total('completed') +
      ' completed, ' +
      total('exited') +
      ' exited, ' +
      total('failed') +
      ' failed'
    );
  };

  async function automationPage() {
    const first = await api('GET', '/automations/' + encodeURIComponent(pageId));
    if (first.status === 404) return notFound('Automation');
    if (first.status !== 200) return setStatus(errorText(first));
    const names = await agents();
    const head = h('div', { id: 'automation-head' });
    const counts = h('div', { id: 'automation-steps' });
    const detail = h('div', { id: 'enrollment-detail' });
    const contactNames = new Map();
    const contactName = async (id) => {
      if (!contactNames.has(id)) {
        const r = await api('GET', '/contacts/' + encodeURIComponent(id));
        contactNames.set(id, r.status === 200 ? r.body.name || r.body.email || id : id);
      }
      return contactNames.get(id);
    };
    const showEnrollment = async (e) => {
      const [one, sent] = await Promise.all([
        api('GET', '/automations/' + encodeURIComponent(pageId) + '/enrollments/' + encodeURIComponent(e.id)),
        api('GET', '/messages?sourceKind=automation&sourceId=' + encodeURIComponent(e.id) + '&limit=100'),
      ]);
      if (one.status !== 200) return setStatus(errorText(one));
      const steps = one.body.steps || [];
      fill(
        detail,
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'enrollment-title', dataset: { id: e.id } },
          h('h3', { id: 'enrollment-title' }, 'Enrollment of ' + (await contactName(e.contactId))),
          facts([
            ['Status', badge(one.body.status)],
            ['At step', String(one.body.step)],
            ['Waiting for', one.body.waitingFor],
            ['Exit reason', one.body.exitReason],
            ['Started', when(one.body.createdAt)],
            ['Ended', one.body.endedAt ? when(one.body.endedAt) : null],
          ]),
          h('h4', {}, 'What its steps did'),
          steps.length
            ? h(
                'ul',
                { class: 'plain step-results' },
                steps.map((s) =>
                  h(
                    'li',
                    {},
                    'Step ' + s.step + ': ',
                    badge(s.status),
                    s.detail && s.detail.to ? ' to ' + s.detail.to : '',
                    s.detail && s.detail.reason ? ' (' + s.detail.reason + ')' : '',
                  ),
                ),
              )
            : h('p', { class: 'muted' }, 'No step has acted yet.'),
          h('h4', {}, 'Messages sent for it'),
          table(
            ['Sent', 'Channel', 'To', 'Status'],
            (sent.status === 200 ? sent.body.data : []).map((m) =>
              h(
                'tr',
                { dataset: { id: m.id } },
                h('td', {}, when(m.createdAt)),
                h('td', {}, CHANNELS[m.channel] || m.channel),
                h('td', {}, m.address),
                h('td', {}, badge(m.status)),
              ),
            ),
            'No message yet.',
            'Messages of this enrollment',
          ),
        ),
      );
    };
    const enrollments = pagedList(
      'Enrollments',
      '/automations/' + encodeURIComponent(pageId) + '/enrollments',
      25,
      (items) =>
        table(
          ['Contact', 'Status', 'Step', 'Waiting for', 'Started', 'Ended', ''],
          items.map((e) =>
            h(
              'tr',
              { dataset: { id: e.id } },
              h('td', { class: 'contact' }, contactNames.get(e.contactId) || e.contactId),
              h('td', {}, badge(e.status)),
              h('td', {}, String(e.step)),
              h('td', {}, e.waitingFor || ''),
              h('td', {}, when(e.createdAt)),
              h('td', {}, e.endedAt ? when(e.endedAt) : ''),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': 'Details of the enrollment of ' + (contactNames.get(e.contactId) || e.contactId),
                    onclick: () => void showEnrollment(e),
                  },
                  'Details',
                ),
              ),
            ),
          ),
          'Nobody enrolled yet.',
          'Enrollments',
        ),
    );
    content.replaceChildren(
      head,
      counts,
      h(
        'section',
        { 'aria-labelledby': 'enrollments-title' },
        h('h2', { id: 'enrollments-title' }, 'Enrollments'),
        enrollments.el,
      ),
      detail,
    );
    const drawHead = (a) => {
      const out = h('p', { role: 'status', class: 'outcome' });
      const inbound = a.trigger.kind === 'inbound';
      const hookUrl = vocabulary.apiBaseUrl + '/agents/' + a.agentId + '/hooks?source=' + a.trigger.source;
      fill(
        head,
        h(
          'div',
          { class: 'card' },
          h('p', {}, badge(a.enabled ? 'enabled' : 'disabled'), ' version ' + a.version),
          facts([
            ['Trigger', describeTrigger(a.trigger)],
            [
              'Mapping',
              inbound && a.trigger.mapping
                ? h(
                    'ul',
                    { class: 'plain' },
                    pairLines(a.trigger.mapping)
                      .split('\n')
                      .map((line) => h('li', {}, line)),
                  )
                : null,
            ],
            ['Agent', names.get(a.agentId) || a.agentId],
            ['Created', when(a.createdAt)],
          ]),
          inbound
            ? [
                h('h3', {}, 'Where the sign-ups are POSTed'),
                h('p', {}, h('code', { id: 'inbound-url' }, 'POST ' + hookUrl)),
                h(
                  'p',
                  { class: 'muted' },
                  'With Authorization: Bearer and an AGENT_AUTH_KEY of the agent (',
                  h('a', { href: '/app/hooks?agent=' + encodeURIComponent(a.agentId) }, 'Hooks and keys'),
                  '), and a webhook-id header: a repeat of one webhook-id enrolls nobody again.',
                ),
              ]
            : null,
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                onclick: async () => {
                  const r = await api('PATCH', '/automations/' + encodeURIComponent(a.id), { enabled: !a.enabled });
                  if (r.status !== 200) return (out.textContent = errorText(r));
                  drawHead(r.body);
                },
              },
              a.enabled ? 'Disable' : 'Enable',
            ),
          ),
          out,
        ),
      );
    };
    document.querySelector('h1').textContent = 'Automation: ' + first.body.name;
    drawHead(first.body);
    every(3000, async () => {
      const [a, stepCounts] = await Promise.all([
        api('GET', '/automations/' + encodeURIComponent(pageId)),
        api('GET', '/automations/' + encodeURIComponent(pageId) + '/step-counts'),
      ]);
      if (a.status !== 200) throw new Error(errorText(a));
      const rows = stepCounts.status === 200 ? stepCounts.body.data : [];
      fill(
        counts,
        h(
          'section',
          { class: 'card', dataset: { id: a.body.id }, 'aria-labelledby': 'steps-title' },
          h('h2', { id: 'steps-title' }, 'Steps'),
          h('p', { class: 'muted enrollment-totals' }, enrollmentTotals(rows)),
          stepsWithCounts(a.body, rows),
        ),
      );
      const res = await enrollments.refresh();
      // Names for the rows, read once per contact; the next round shows them.
      await Promise.all(res.body.data.map((e) => contactName(e.contactId)));
      setStatus(
        count(res.body.data.length, 'enrollment') + ' on this page · updated ' + new Date().toLocaleTimeString(),
      );
    });
  }

  // ---------------------------------------------------------------- Messages: the message log and the sandbox outbox

  function messagesPage() {
    const sourceFilter = h(
      'select',
      { id: 'message-source' },
      options([['', 'Everything'], ...vocabulary.messageSources.map((s) => [s, s.replace(/_/g, ' ')])]),
    );
    const statusFilter = h(
      'select',
      { id: 'message-status' },
      options([
        ['', 'Any'],
        ['sent', 'sent'],
        ['failed', 'failed'],
      ]),
    );
    const query = () => {
      const q = new URLSearchParams();
      if (sourceFilter.value) q.set('sourceKind', sourceFilter.value);
      if (statusFilter.value) q.set('status', statusFilter.value);
      return '/messages' + (q.toString() ? '?' + q : '');
    };
    const sourceLink = (m) =>
      m.sourceKind === 'campaign' || m.sourceKind === 'campaign_test'
        ? h('a', { href: '/app/campaigns/' + encodeURIComponent(m.sourceId) }, m.sourceKind.replace(/_/g, ' '))
        : m.sourceKind + ' ' + m.sourceId;
    const log = pagedList('Messages', query(), 25, (items) =>
      table(
        ['Sent', 'Channel', 'To', 'Status', 'For', 'Provider', 'Opened', 'Clicked'],
        items.map((m) =>
          h(
            'tr',
            { dataset: { id: m.id } },
            h('td', {}, when(m.createdAt)),
            h('td', {}, CHANNELS[m.channel] || m.channel),
            h('td', {}, m.address),
            h('td', {}, badge(m.status)),
            h('td', {}, sourceLink(m)),
            h('td', {}, m.provider),
            h('td', {}, m.openedAt ? when(m.openedAt) : ''),
            h('td', {}, m.clickedAt ? when(m.clickedAt) : ''),
          ),
        ),
        'No messages yet.',
        'Messages',
      ),
    );
    const outbox = pagedList('Sandbox outbox', '/outbox', 25, (items) =>
      table(
        ['When', 'To', 'Subject', 'Message'],
        items.map((m) =>
          h(
            'tr',
            { dataset: { id: m.id } },
            h('td', {}, when(m.createdAt)),
            h('td', {}, m.to),
            h('td', {}, m.subject || ''),
            h('td', { class: 'result' }, m.body.length > 160 ? m.body.slice(0, 160) + '…' : m.body),
          ),
        ),
        'The sandbox has sent nothing.',
        'Sandbox outbox',
      ),
    );
    const refilter = () => void log.restart(query()).catch((err) => setStatus(err.message));
    sourceFilter.addEventListener('change', refilter);
    statusFilter.addEventListener('change', refilter);
    content.replaceChildren(
      h(
        'div',
        { class: 'toolbar' },
        h('div', {}, field('message-source', 'Sent for', sourceFilter)),
        h('div', {}, field('message-status', 'Status', statusFilter)),
      ),
      h(
        'section',
        { 'aria-labelledby': 'log-title', id: 'message-log' },
        h('h2', { id: 'log-title' }, 'Every message a provider was asked to send'),
        log.el,
      ),
      h(
        'section',
        { 'aria-labelledby': 'outbox-title', id: 'outbox' },
        h('h2', { id: 'outbox-title' }, 'Sandbox outbox'),
        h(
          'p',
          { class: 'muted' },
          'What the sandbox provider "sent": the whole message, as a recipient would read it.',
        ),
        outbox.el,
      ),
    );
    every(5000, async () => {
      await Promise.all([log.refresh(), outbox.refresh()]);
      setStatus('Updated ' + new Date().toLocaleTimeString());
    });
  }

  // ---------------------------------------------------------------- Segments

  function segmentsPage() {
    const preview = h('div', { id: 'segment-preview' });
    // After every change too: the status line counts what the page shows.
    const refresh = async () => {
      const res = await segments.refresh();
      setStatus(count(res.body.data.length, 'segment') + ' on this page');
    };
    const segments = pagedList('Segments', '/segments', 25, (items) =>
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
                      const r = await api('GET', '/segments/' + encodeURIComponent(s.id) + '/contacts?limit=100');
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
                  path: '/segments/' + encodeURIComponent(s.id),
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
      async (v) => {
        const res = await api('POST', '/segments', {
          name: v.name.trim(),
          groups: [{ match: v.match, conditions: conditionsOf(v.conditions) }],
        });
        if (res.status !== 201) return errorText(res);
        await refresh();
        return { text: 'Created ' + res.body.name + '.', done: true };
      },
    );
    content.replaceChildren(segments.el, preview, form);
    void refresh().catch((err) => setStatus(err.message));
  }

  // ---------------------------------------------------------------- API tokens

  function tokensPage() {
    const created = h('div', { id: 'token-created' });
    // After every change too: the status line counts what the page shows.
    const refresh = async () => {
      const res = await tokens.refresh();
      setStatus(count(res.body.data.length, 'token') + ' on this page');
    };
    const tokens = pagedList('API tokens', '/api-tokens', 25, (items) =>
      table(
        ['Name', 'Token', 'Created', 'Last used', 'Expires', ''],
        items.map((t) =>
          h(
            'tr',
            { dataset: { id: t.id } },
            h('td', {}, t.name),
            h('td', {}, t.prefix + '…'),
            h('td', {}, when(t.createdAt)),
            h('td', {}, t.lastUsedAt ? when(t.lastUsedAt) : 'never'),
            h('td', {}, t.expiresAt ? when(t.expiresAt) : 'when revoked'),
            h(
              'td',
              {},
              t.revokedAt
                ? badge('revoked')
                : deleteButton({
                    text: 'Revoke',
                    label: 'Revoke ' + t.name + ' (' + t.prefix + ')',
                    path: '/api-tokens/' + encodeURIComponent(t.id),
                    ok: 200,
                    after: refresh,
                  }),
            ),
          ),
        ),
        'No tokens.',
        'API tokens',
      ),
    );
    const { form } = smallForm(
      'token',
      'New API token',
      [
        { name: 'name', label: 'Name (what uses it)', required: true },
        { name: 'days', label: 'Valid for days (empty: until revoked)', type: 'number' },
      ],
      'Create token',
      async (v) => {
        const res = await api('POST', '/api-tokens', {
          name: v.name.trim(),
          ...(v.days ? { expiresInDays: Number(v.days) } : {}),
        });
        if (res.status !== 201) return errorText(res);
        fill(created, shownOnce('api-token-value', 'API token ' + res.body.name, res.body.token));
        await refresh();
        return { text: 'Created ' + res.body.name + '.', done: true };
      },
    );
    content.replaceChildren(
      h(
        'p',
        { class: 'muted' },
        'Your own tokens, for curl, scripts and the MCP Inspector (Authorization: Bearer tap_… with X-Team-Slug). Your console sign-in is one of them: revoking it signs this browser out.',
      ),
      created,
      tokens.el,
      form,
    );
    void refresh().catch((err) => setStatus(err.message));
  }

  const PAGES = {
    approvals: approvalsPage,
    rooms: roomsPage,
    room: roomPage,
    campaigns: campaignsPage,
    campaign: campaignPage,
    jobs: jobsPage,
    automations: automationsPage,
    automation: automationPage,
    webhooks: webhooksPage,
    hooks: hooksPage,
    messages: messagesPage,
    agents: agentsPage,
    contacts: contactsPage,
    segments: segmentsPage,
    artifacts: artifactsPage,
    tokens: tokensPage,
  };
  // On a phone the sections scroll sideways: bring the current one into view.
  const current = document.querySelector('nav a[aria-current="page"]');
  if (current) current.scrollIntoView({ block: 'nearest', inline: 'center' });
  const run = PAGES[page];
  if (run) Promise.resolve(run()).catch((err) => setStatus('Something went wrong: ' + err.message));
})();
