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
  /** "1 campaign", "2 campaigns". */
  const count = (n, noun) => n + ' ' + noun + (n === 1 ? '' : 's');
  const setStatus = (text) => {
    statusLine.textContent = text;
  };
  const errorText = (res) =>
    res.body && res.body.error ? res.body.error.message + ' (' + res.body.error.code + ')' : 'HTTP ' + res.status;
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
      const res = await api('POST', '/warp-executions/' + encodeURIComponent(execution.id) + '/' + verb, body);
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
                view.recipients.map((r) => h('li', {}, (r.name ? r.name + ' — ' : '') + r.address)),
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
      const res = await api('POST', '/campaigns/' + encodeURIComponent(campaign.id) + '/cards', body);
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
        ['Subject', campaign.subject],
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
            h('span', { class: 'address' }, c.address || c.contactId),
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
      // Cards already shown stay as they are (a half-typed edit survives a refresh); gone ones leave.
      for (const el of [...list.children]) {
        const key = el.dataset.key;
        if (!wanted.has(key) && !el.dataset.decided) el.remove();
        if (el.dataset.decided && !wanted.has(key)) setTimeout(() => el.remove(), 5000);
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

  function roomsPage() {
    every(5000, async () => {
      const [rooms, names] = await Promise.all([api('GET', '/rooms?limit=100'), agents()]);
      if (rooms.status !== 200) throw new Error(errorText(rooms));
      const rows = rooms.body.data.map((r) =>
        h(
          'tr',
          {},
          h('td', {}, h('a', { href: '/app/rooms/' + encodeURIComponent(r.id) }, r.name)),
          h('td', {}, names.get(r.agentId) || r.agentId),
          h('td', {}, when(r.lastActivityAt)),
          h('td', {}, String(r.lastEventId)),
        ),
      );
      const agentChoices = [...names].map(([id, name]) => h('option', { value: id }, name));
      const nameField = h('input', { type: 'text', id: 'new-room-name', required: true, maxlength: 100 });
      const agentField = h('select', { id: 'new-room-agent' }, agentChoices);
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
      if (!content.querySelector('form'))
        content.replaceChildren(
          open,
          h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Rooms' }),
        );
      content
        .querySelector('.table-wrap')
        .replaceChildren(
          rows.length
            ? h(
                'table',
                {},
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    h('th', {}, 'Room'),
                    h('th', {}, 'Agent'),
                    h('th', {}, 'Last activity'),
                    h('th', {}, 'Events'),
                  ),
                ),
                h('tbody', {}, rows),
              )
            : h('p', { class: 'muted' }, 'No rooms yet.'),
        );
      setStatus(count(rows.length, 'room') + ' · updated ' + new Date().toLocaleTimeString());
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
    const TYPES = [
      'message.created',
      'message.delta',
      'message.reset',
      'message.completed',
      'tool.call',
      'tool.result',
      'approval.requested',
      'approval.decided',
      'turn.completed',
      'turn.failed',
    ];
    const streamPath = new URL(opened.body.streamUrl).pathname + new URL(opened.body.streamUrl).search;
    let source;
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
        if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
      };
      for (const type of TYPES)
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
    const params = h('textarea', { id: 'new-params', placeholder: 'first=contact.firstName' });
    const outcome = h('p', { role: 'status', class: 'outcome' });
    const create = h(
      'form',
      {
        class: 'card',
        onsubmit: async (ev) => {
          ev.preventDefault();
          const templateParams = {};
          for (const line of params.value.split('\n')) {
            const at = line.indexOf('=');
            if (at > 0) templateParams[line.slice(0, at).trim()] = line.slice(at + 1).trim();
          }
          const res = await api('POST', '/campaigns', {
            name: name.value.trim(),
            channel: channel.value,
            ...(subject.value.trim() ? { subject: subject.value.trim() } : {}),
            content: body.value,
            tags: tags.value
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
            templateParams,
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
    // A refresh and a click on "Show archived" can overlap: only the latest answer is shown.
    let asked = 0;
    const refresh = async () => {
      const mine = ++asked;
      const res = await api('GET', '/campaigns?limit=100' + (archivedBox.checked ? '&archived=true' : ''));
      if (res.status !== 200) throw new Error(errorText(res));
      if (mine !== asked) return;
      list.replaceChildren(
        table(
          ['Campaign', 'Channel', 'Status', 'Recipients', 'Sent', 'Skipped', 'Failed', 'Opened', 'Clicked'],
          res.body.data.map((c) =>
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
      setStatus(count(res.body.data.length, 'campaign') + ' · updated ' + new Date().toLocaleTimeString());
    };
    archivedBox.addEventListener('change', () => void refresh());
    every(5000, refresh);
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
        const at = h('input', { type: 'datetime-local', id: 'send-at' });
        return h(
          'form',
          {
            class: 'card',
            onsubmit: (ev) => {
              ev.preventDefault();
              void act('POST', '/send', at.value ? { scheduledAt: new Date(at.value).toISOString() } : {});
            },
          },
          h('label', { for: 'send-at' }, 'Send at (empty: now)'),
          at,
          h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Send campaign')),
        );
      },
      edit() {
        const name = h('input', { type: 'text', id: 'edit-name', value: campaign.name });
        const subject = h('input', { type: 'text', id: 'edit-subject', value: campaign.subject || '' });
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
                ...(campaign.channel === 'email' || campaign.channel === 'push'
                  ? { subject: subject.value.trim() || null }
                  : {}),
              });
            },
          },
          h('label', { for: 'edit-name' }, 'Name'),
          name,
          campaign.channel === 'email' || campaign.channel === 'push'
            ? [h('label', { for: 'edit-subject' }, 'Subject'), subject]
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
      fill(message, c.subject ? facts([['Subject', c.subject]]) : null, h('div', { class: 'message' }, c.content));
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
              h('td', {}, when(j.startedAt || j.createdAt)),
              h('td', {}, j.finishedAt ? when(j.finishedAt) : ''),
              h(
                'td',
                { class: 'result' },
                j.error ? j.error.message : j.result ? JSON.stringify(j.result).slice(0, 160) : '',
              ),
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

  function automationsPage() {
    const list = h('div', { class: 'cards', id: 'automation-list' });
    content.replaceChildren(list);
    every(4000, async () => {
      const res = await api('GET', '/automations?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      const counts = await Promise.all(
        res.body.data.map((a) => api('GET', '/automations/' + encodeURIComponent(a.id) + '/step-counts')),
      );
      list.replaceChildren(
        ...res.body.data.map((a, i) => {
          const rows = counts[i].status === 200 ? counts[i].body.data : [];
          const at = (step) => rows.filter((r) => r.version === a.version && r.step === step);
          const sum = (rs, k) => rs.reduce((n, r) => n + r[k], 0);
          const total = (k) => sum(rows, k);
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
            h('h3', { id: 'title-' + a.id }, a.name),
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
            h(
              'p',
              { class: 'muted enrollment-totals' },
              'Enrollments: ' +
                total('active') +
                ' active, ' +
                total('completed') +
                ' completed, ' +
                total('exited') +
                ' exited, ' +
                total('failed') +
                ' failed',
            ),
            h(
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
            ),
            older.length ? h('p', { class: 'muted' }, 'On older versions: ' + sum(older, 'active') + ' active') : null,
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
            values[name] = el.type === 'checkbox' ? el.checked : el.value;
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

  function agentsPage() {
    const list = h('div', { class: 'cards', id: 'agent-list' });
    content.replaceChildren(list);
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
    content.replaceChildren(list, form);
    const refresh = async () => {
      const res = await api('GET', '/contacts?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      list.replaceChildren(
        table(
          ['Name', 'Email', 'Phone', 'Tags', 'Marketing'],
          res.body.data.map((c) =>
            h(
              'tr',
              { dataset: { id: c.id } },
              h('td', {}, c.name || ''),
              h('td', {}, c.email || ''),
              h('td', {}, c.phone || ''),
              h('td', {}, (c.tags || []).join(', ')),
              h('td', {}, c.optedOut ? 'opted out' : c.marketingConsent),
            ),
          ),
          'No contacts yet.',
          'Contacts',
        ),
      );
      setStatus(count(res.body.data.length, 'contact'));
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
        {
          name: 'contactId',
          label: 'For contact',
          type: 'select',
          options: [['', '(none yet)'], ...contacts.map((c) => [c.id, contactName.get(c.id)])],
        },
      ],
      'Create draft',
      async (v) => {
        const res = await api('POST', '/artifacts', {
          title: v.title.trim(),
          type: v.type,
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
    const refresh = async () => {
      const res = await api('GET', '/artifacts?limit=100');
      if (res.status !== 200) throw new Error(errorText(res));
      list.replaceChildren(
        table(
          ['Title', 'Type', 'For', 'Status', 'Delivered', ''],
          res.body.data.map((a) =>
            h(
              'tr',
              { dataset: { id: a.id } },
              h('td', {}, a.url ? h('a', { href: a.url, rel: 'noopener noreferrer' }, a.title) : a.title),
              h('td', {}, a.type),
              h('td', {}, a.contactId ? contactName.get(a.contactId) || a.contactId : ''),
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
      setStatus(count(res.body.data.length, 'artifact'));
    };
    await refresh();
  }

  const PAGES = {
    approvals: approvalsPage,
    rooms: roomsPage,
    room: roomPage,
    campaigns: campaignsPage,
    campaign: campaignPage,
    jobs: jobsPage,
    automations: automationsPage,
    agents: agentsPage,
    contacts: contactsPage,
    artifacts: artifactsPage,
  };
  // On a phone the sections scroll sideways: bring the current one into view.
  const current = document.querySelector('nav a[aria-current="page"]');
  if (current) current.scrollIntoView({ block: 'nearest', inline: 'center' });
  const run = PAGES[page];
  if (run) Promise.resolve(run()).catch((err) => setStatus('Something went wrong: ' + err.message));
})();
