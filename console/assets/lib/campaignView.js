// @ts-check
/* What a campaign's page shows of its fields beyond the plain message: the HTML body (in the
 * sandboxed preview), the WhatsApp template's language and category, the placeholders and what
 * each maps to, the audience and the schedule. */
import { count, facts, fill, h, when } from './dom.js';
import { htmlPreview } from './htmlPreview.js';
/** @import { Ok } from '../api/types' */
/** @typedef {Ok<'/campaigns/{campaignId}', 'get'>} Campaign */

export function campaignDetails() {
  const el = h('div', { id: 'campaign-details' });
  const preview = htmlPreview('html-preview', 'The HTML body as it will look');
  const previewBox = h('div', {}, h('h3', {}, 'HTML body'), preview.el);
  let shown = '';
  return {
    el,
    /** Redrawn when the campaign changed (not at every poll: the preview would flicker). */
    show(/** @type {Campaign} */ c) {
      if (c.updatedAt + c.status === shown) return;
      shown = c.updatedAt + c.status;
      const placeholders = [
        ...Object.entries(c.templateParams).map(([k, v]) => '{{' + k + '}} = ' + v),
        ...Object.entries(c.aiParams).map(([k, v]) => '{{' + k + '}} = AI: ' + v),
      ];
      const audience = [
        c.tags && c.tags.length ? 'tags ' + c.tags.join(', ') : '',
        c.segmentId ? 'segment ' + c.segmentId : '',
        c.contactIds && c.contactIds.length ? count(c.contactIds.length, 'picked contact') : '',
      ].filter(Boolean);
      fill(
        el,
        facts([
          ['Language', c.language],
          ['Category', c.category],
          [
            'Placeholders',
            placeholders.length
              ? h(
                  'ul',
                  { class: 'plain' },
                  placeholders.map((p) => h('li', {}, p)),
                )
              : null,
          ],
          ['Audience', audience.join('; ') + (c.status === 'draft' ? '' : ' (fixed)')],
          ['Scheduled for', c.scheduledAt ? when(c.scheduledAt) : null],
        ]),
        c.contentHtml ? previewBox : null,
      );
      if (c.contentHtml) preview.show(c.contentHtml);
    },
  };
}
