// @ts-check
/* Artifacts: the list, a New artifact form (with a file), and delivery. */
import {
  createArtifact,
  deliverArtifacts,
  listArtifacts,
  listContacts,
  updateArtifact,
  uploadMedia,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, h, table, when } from '../lib/dom.js';
import { content, setStatus } from '../lib/frame.js';
import { pagedList } from '../lib/paged.js';
import { smallForm } from '../lib/widgets.js';
/** @import { Body, Item } from '../api/types' */

/** @type {NonNullable<Body<'/artifacts', 'post'>['type']>[]} */
const ARTIFACT_TYPES = ['agreement', 'offer', 'concept', 'update', 'demo', 'file', 'other'];

export default async function artifactsPage() {
  const contacts = (await listContacts({ limit: 100 })).body.data || [];
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
        options: [
          ['', '(none yet)'],
          ...contacts.map((c) => /** @type {[string, string]} */ ([c.id, contactName.get(c.id) || c.id])),
        ],
      },
    ],
    'Create draft',
    async (
      /** @type {{ title: string, type: Body<'/artifacts', 'post'>['type'], url: string, file: FileList | null, contactId: string }} */ v,
    ) => {
      // The file first (POST /v1/media), then the artifact that names it, as the delivery walk-through does.
      /** @type {string[]} */
      let media = [];
      if (v.file && v.file.length) {
        const uploaded = await uploadMedia(v.file[0]);
        if (uploaded.status !== 201) return errorText(uploaded);
        media = [uploaded.body.id];
      }
      const res = await createArtifact({
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
  const deliverForm = (/** @type {Item<'/artifacts'>} */ artifact) => {
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
      async (
        /** @type {{ integration: Body<'/artifacts/deliver', 'post'>['integration'], subject: string, message: string }} */ v,
      ) => {
        const res = await deliverArtifacts({
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
  const artifacts = pagedList('Artifacts', listArtifacts, 25, (items) =>
    table(
      ['Title', 'Type', 'For', 'Files', 'Status', 'Delivered', ''],
      items.map((a) =>
        h(
          'tr',
          { dataset: { id: a.id } },
          h('td', {}, h('a', { href: '/app/artifacts/' + encodeURIComponent(a.id) }, a.title)),
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
                      const r = await updateArtifact(a.id, { status: 'ready' });
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
