// @ts-check
/* The campaign form, the same for New campaign and a campaign's Edit: every field of the campaign
 * by channel (services/campaigns/schemas.ts), the placeholders mapped, the audience, the schedule.
 * The API checks every rule; the form offers only the fields the channel has. */
import { audiencePicker } from './campaignAudience.js';
import { h, options } from './dom.js';
import { htmlPreview } from './htmlPreview.js';
import { agents, CHANNELS } from './names.js';
/** @import { Body, Ok } from '../api/types' */
/** @typedef {Ok<'/campaigns/{campaignId}', 'get'>} Campaign */
/** @typedef {Body<'/campaigns', 'post'>} CreateBody */
/** @typedef {Body<'/campaigns/{campaignId}', 'patch'>} UpdateBody */
/** @typedef {CreateBody['channel']} Channel */
/** @typedef {NonNullable<CreateBody['category']>} Category */

/** The contact fields a placeholder can take (CONTACT_PATHS of services/campaigns/content.ts; the test compares). */
export const CONTACT_PATHS = [
  'contact.name',
  'contact.firstName',
  'contact.lastName',
  'contact.email',
  'contact.phone',
  'contact.company',
  'contact.title',
  'contact.location',
];
/** A WhatsApp template's categories (campaignFields.category). */
const CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];
/** The placeholders `{{name}}` of the texts, in order of first use (PLACEHOLDER of content.ts). */
const placeholdersIn = (/** @type {string[]} */ ...texts) => [
  ...new Set(texts.flatMap((t) => [...t.matchAll(/\{\{\s*([a-z0-9_]+)\s*\}\}/g)].map((m) => m[1]))),
];
/** A datetime-local value (the browser's time) as ISO 8601 in UTC, and back. */
export const isoOf = (/** @type {string} */ local) => (local ? new Date(local).toISOString() : null);
const localOf = (/** @type {string | null} */ iso) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * What the form holds, as the API names it; `audience` is null when it is fixed (not a Draft).
 * @typedef {{
 *   name: string, channel: Channel, subject: string, content: string, contentHtml: string,
 *   language: string, category: string, agentId: string, scheduledAt: string | null,
 *   templateParams: Record<string, string>, aiParams: Record<string, string>,
 *   audience: { segmentId: string, tags: string[], contactIds: string[] } | null,
 * }} CampaignValues
 */

/** The body of POST /campaigns: each field the form has a value for, on its channel. */
export function createBody(/** @type {CampaignValues} */ v) {
  const a = v.audience || { segmentId: '', tags: [], contactIds: [] };
  /** @type {CreateBody} */
  const body = { name: v.name, channel: v.channel, content: v.content };
  if (v.subject) body[v.channel === 'push' ? 'title' : 'subject'] = v.subject;
  if (v.channel === 'email' && v.contentHtml.trim()) body.contentHtml = v.contentHtml;
  if (v.channel === 'whatsapp' && v.language) body.language = v.language;
  if (v.channel === 'whatsapp' && v.category) body.category = /** @type {Category} */ (v.category);
  if (a.segmentId) body.segmentId = a.segmentId;
  if (a.tags.length) body.tags = a.tags;
  if (a.contactIds.length) body.contactIds = a.contactIds;
  body.templateParams = v.templateParams;
  body.aiParams = v.aiParams;
  if (v.agentId) body.agentId = v.agentId;
  if (v.scheduledAt) body.scheduledAt = v.scheduledAt;
  return body;
}

/** The body of PATCH /campaigns/{id}: only what changed (an unchanged WhatsApp template keeps its approval). */
export function updateBody(/** @type {Campaign} */ c, /** @type {CampaignValues} */ v) {
  const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b);
  const orNull = (/** @type {string} */ s) => s || null;
  /** @type {Record<string, unknown>} */
  const body = {};
  if (v.name !== c.name) body.name = v.name;
  if (v.content !== c.content) body.content = v.content;
  if (c.channel === 'email' && orNull(v.subject) !== c.subject) body.subject = orNull(v.subject);
  if (c.channel === 'push' && orNull(v.subject) !== c.title) body.title = orNull(v.subject);
  if (c.channel === 'email' && orNull(v.contentHtml.trim() ? v.contentHtml : '') !== c.contentHtml)
    body.contentHtml = v.contentHtml.trim() ? v.contentHtml : null;
  if (c.channel === 'whatsapp' && orNull(v.language) !== c.language) body.language = orNull(v.language);
  if (c.channel === 'whatsapp' && orNull(v.category) !== c.category) body.category = orNull(v.category);
  if (!same(v.templateParams, c.templateParams)) body.templateParams = v.templateParams;
  if (!same(v.aiParams, c.aiParams)) body.aiParams = v.aiParams;
  if (orNull(v.agentId) !== c.agentId) body.agentId = orNull(v.agentId);
  if (
    v.scheduledAt !== c.scheduledAt &&
    !(v.scheduledAt && c.scheduledAt && same(localOf(v.scheduledAt), localOf(c.scheduledAt)))
  )
    body.scheduledAt = v.scheduledAt;
  const a = v.audience;
  if (
    a &&
    !same(
      [a.segmentId || null, a.tags.length ? a.tags : null, a.contactIds.length ? a.contactIds : null],
      [c.segmentId, c.tags && c.tags.length ? c.tags : null, c.contactIds && c.contactIds.length ? c.contactIds : null],
    )
  ) {
    // Any source sent replaces the whole audience: all three go.
    body.segmentId = a.segmentId || null;
    body.tags = a.tags.length ? a.tags : null;
    body.contactIds = a.contactIds.length ? a.contactIds : null;
  }
  return /** @type {UpdateBody} */ (body);
}

/**
 * The form. `campaign` is the campaign edited (none: a new one). `submit` gets the values and
 * answers what to say under the form.
 * @param {{
 *   prefix: string,
 *   title?: string,
 *   campaign?: Campaign,
 *   submitLabel: string,
 *   submit: (values: CampaignValues) => Promise<string>,
 * }} how
 */
export function campaignForm({ prefix, title, campaign, submitLabel, submit }) {
  const c = campaign;
  const id = (/** @type {string} */ name) => prefix + '-' + name;
  const labelled = (/** @type {string} */ name, /** @type {string} */ label, /** @type {Element} */ el) => [
    h('label', { for: id(name) }, label),
    el,
  ];
  const name = h('input', { type: 'text', id: id('name'), required: true, maxlength: 200, value: c ? c.name : '' });
  const channel = h(
    'select',
    { id: id('channel'), disabled: !!c },
    ['email', 'sms', 'push', 'whatsapp'].map((x) =>
      h('option', { value: x, selected: c && c.channel === x }, CHANNELS[x]),
    ),
  );
  const subject = h('input', {
    type: 'text',
    id: id('subject'),
    maxlength: 300,
    value: c ? (c.channel === 'push' ? c.title : c.subject) || '' : '',
  });
  const subjectLabel = h('label', { for: id('subject') }, 'Subject');
  const body = h('textarea', { id: id('content'), maxlength: 5000 }, c ? c.content : '');
  const html = h(
    'textarea',
    { id: id('html'), maxlength: 50000, class: 'code' },
    c && c.contentHtml ? c.contentHtml : '',
  );
  const preview = htmlPreview(id('html-preview'), 'Preview of the HTML body');
  const previewBox = h(
    'div',
    {},
    h('p', { class: 'muted' }, 'Preview (scripts never run, nothing loads from elsewhere):'),
    preview.el,
  );
  /** The preview, shown once there is HTML to preview. */
  const showPreview = () => {
    previewBox.hidden = !html.value.trim();
    preview.show(html.value);
  };
  const language = h('input', {
    type: 'text',
    id: id('language'),
    placeholder: 'en_US',
    pattern: '[a-z]{2,3}(_[A-Z]{2})?',
    value: c && c.language ? c.language : '',
  });
  const category = h(
    'select',
    { id: id('category') },
    h('option', { value: '' }, '—'),
    options(
      CATEGORIES.map((x) => [x, x]),
      c && c.category,
    ),
  );
  const agent = h('select', { id: id('agent') }, h('option', { value: '' }, 'The team’s sending agent'));
  void agents().then((m) => agent.append(...options([...m.entries()], c && c.agentId)));
  const at = h('input', { type: 'datetime-local', id: id('scheduled'), value: c ? localOf(c.scheduledAt) : '' });

  // Placeholders: one row per {{name}} of the texts, each a contact field, a literal or an AI prompt.
  /** @type {Map<string, { kind: string, value: string }>} */
  const mapped = new Map();
  for (const [k, v] of Object.entries(c ? c.templateParams : {}))
    mapped.set(k, { kind: CONTACT_PATHS.includes(v) ? 'contact' : 'literal', value: v });
  for (const [k, v] of Object.entries(c ? c.aiParams : {})) mapped.set(k, { kind: 'ai', value: v });
  const placeholderRows = h('div', { id: id('placeholders'), class: 'placeholders' });
  const drawPlaceholders = () => {
    const names = placeholdersIn(subject.value, body.value, channel.value === 'email' ? html.value : '');
    if (!names.length)
      return placeholderRows.replaceChildren(h('p', { class: 'muted' }, 'No {{placeholders}} in the message.'));
    placeholderRows.replaceChildren(
      ...names.map((p) => {
        const m = mapped.get(p) || { kind: '', value: '' };
        mapped.set(p, m);
        const kinds = [
          ['', 'Not mapped (empty)'],
          ['contact', 'Contact field'],
          ['literal', 'Text'],
          ...(channel.value === 'whatsapp' ? [] : [['ai', 'AI prompt']]),
        ];
        const kind = h(
          'select',
          { id: id('ph-' + p), dataset: { placeholder: p } },
          options(/** @type {[string, string][]} */ (kinds), m.kind),
        );
        const path = h(
          'select',
          { 'aria-label': 'Contact field for {{' + p + '}}' },
          options(
            CONTACT_PATHS.map((x) => [x, x]),
            m.kind === 'contact' ? m.value : null,
          ),
        );
        const text = h('input', {
          type: 'text',
          maxlength: 500,
          'aria-label': 'Text or prompt for {{' + p + '}}',
          value: m.kind === 'contact' ? '' : m.value,
        });
        const show = () => {
          m.kind = kind.value;
          path.hidden = m.kind !== 'contact';
          text.hidden = m.kind === 'contact' || m.kind === '';
          m.value = m.kind === 'contact' ? path.value : text.value;
        };
        kind.addEventListener('change', show);
        path.addEventListener('change', show);
        text.addEventListener('input', show);
        show();
        return h(
          'div',
          { class: 'placeholder' },
          h('label', { for: id('ph-' + p) }, '{{' + p + '}}'),
          kind,
          path,
          text,
        );
      }),
    );
  };

  // The audience: tags, a segment and contacts picked by search (a union); fixed once not a Draft.
  const audience = audiencePicker(id, c, () => /** @type {Channel} */ (channel.value));

  // What each channel has: subject (email) or title (push), HTML (email), language and category (WhatsApp).
  const emailOnly = h('div', {}, labelled('html', 'HTML body (email; {{placeholder}} allowed)', html), previewBox);
  const subjectBox = h('div', {}, subjectLabel, subject);
  const whatsappOnly = h(
    'div',
    {},
    labelled('language', 'Template language (en, en_US)', language),
    labelled('category', 'Template category', category),
  );
  const byChannel = () => {
    const ch = channel.value;
    subjectBox.hidden = ch !== 'email' && ch !== 'push';
    subjectLabel.textContent = ch === 'push' ? 'Title' : 'Subject';
    emailOnly.hidden = ch !== 'email';
    whatsappOnly.hidden = ch !== 'whatsapp';
    drawPlaceholders();
  };
  channel.addEventListener('change', byChannel);
  for (const el of [subject, body]) el.addEventListener('input', drawPlaceholders);
  let redraw = 0;
  html.addEventListener('input', () => {
    clearTimeout(redraw);
    redraw = window.setTimeout(() => {
      showPreview();
      drawPlaceholders();
    }, 250);
  });
  showPreview();
  byChannel();

  const outcome = h('p', { role: 'status', class: 'outcome', id: id('outcome') });
  const form = h(
    'form',
    {
      class: 'card campaign-form',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const names = placeholdersIn(subject.value, body.value, channel.value === 'email' ? html.value : '');
        /** @type {Record<string, string>} */
        const templateParams = {};
        /** @type {Record<string, string>} */
        const aiParams = {};
        for (const p of names) {
          const m = mapped.get(p);
          if (m && m.kind === 'ai') aiParams[p] = m.value;
          else if (m && m.kind) templateParams[p] = m.value;
        }
        outcome.textContent = '…';
        outcome.textContent = await submit({
          name: name.value.trim(),
          channel: /** @type {Channel} */ (channel.value),
          subject: subject.value.trim(),
          content: body.value,
          contentHtml: html.value,
          language: language.value.trim(),
          category: category.value,
          agentId: agent.value,
          scheduledAt: isoOf(at.value),
          templateParams,
          aiParams,
          audience: audience.values(),
        });
      },
    },
    title ? h('h2', {}, title) : null,
    labelled('name', 'Name', name),
    labelled('channel', 'Channel', channel),
    subjectBox,
    labelled('content', 'Message ({{placeholder}} allowed)', body),
    emailOnly,
    whatsappOnly,
    h('fieldset', { id: id('placeholder-box') }, h('legend', {}, 'Placeholders'), placeholderRows),
    labelled('agent', 'Agent (sends, and writes the AI placeholders)', agent),
    audience.el,
    labelled('scheduled', 'Scheduled for (your time; empty: when sent)', at),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, submitLabel)),
    outcome,
  );
  return form;
}
