import { z } from 'zod';
import { confirmPage, noticePage } from '../../auth/pages';
import type { AppContext } from '../../services/platform/context';
import { optOut, unsubscribeTarget, verifyUnsubscribe } from '../../services/contacts/unsubscribe';
import { linkPageHeaders } from '../linkPages';
import { defineRoute, html, Route } from '../routeTable';

const unsubscribeParams = z.object({ contactId: z.string() });
const signature = z.object({ sig: z.string().optional() });

/**
 * The signed unsubscribe link of marketing email. GET shows a button (mail scanners open links);
 * POST opts out, and is also the RFC 8058 one-click target of `List-Unsubscribe-Post`.
 */
export function unsubscribeRoutes(ctx: AppContext): Route[] {
  const invalidLink = noticePage({
    title: 'This link is not valid',
    paragraphs: [
      'This unsubscribe link is incomplete or was changed. Nothing was changed; use the link exactly as it ' +
        'appears in the email.',
    ],
    kind: 'error',
  });
  return [
    defineRoute({
      method: 'get',
      path: '/unsubscribe/{contactId}',
      tag: 'Pages',
      access: 'public',
      summary: 'The unsubscribe page of a marketing email (HTML): a button, nothing changes yet',
      params: unsubscribeParams,
      query: signature,
      middleware: linkPageHeaders,
      responses: {
        200: html('The page (or: already unsubscribed)'),
        403: html('The link is incomplete or was changed'),
      },
      handler: async ({ req, res, params, query }) => {
        if (!verifyUnsubscribe(ctx.secretBox, params.contactId, query.sig))
          return void res.status(403).send(invalidLink);
        const target = await unsubscribeTarget(ctx.db, params.contactId);
        if (!target || target.optedOut) {
          return void res.send(
            noticePage({
              title: 'Already unsubscribed',
              paragraphs: [
                `${target?.address ?? 'This address'} is already unsubscribed: it will not receive marketing messages${target ? ` from ${target.teamName}` : ''}.`,
              ],
              kind: 'done',
            }),
          );
        }
        res.send(
          confirmPage({
            title: 'Unsubscribe',
            heading: 'Unsubscribe from these emails?',
            paragraphs: [
              `${target.address ?? 'This address'} will no longer receive marketing messages from ${target.teamName}.`,
            ],
            action: req.originalUrl,
            buttons: [{ name: 'confirm', value: 'yes', label: 'Unsubscribe', primary: true }],
          }),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/unsubscribe/{contactId}',
      tag: 'Pages',
      access: 'public',
      summary: "Opt out (the page's button, and the RFC 8058 one-click target of List-Unsubscribe-Post) (HTML)",
      params: unsubscribeParams,
      query: signature,
      middleware: linkPageHeaders,
      body: {
        kind: 'form',
        schema: z.object({ confirm: z.string().optional(), 'List-Unsubscribe': z.string().optional() }),
        limit: '1kb',
      },
      responses: { 200: html('Unsubscribed'), 403: html('The link is incomplete or was changed') },
      handler: async ({ res, params, query }) => {
        if (!verifyUnsubscribe(ctx.secretBox, params.contactId, query.sig))
          return void res.status(403).send(invalidLink);
        await optOut(ctx.db, params.contactId);
        res.send(
          noticePage({
            title: 'Unsubscribed',
            heading: 'You are unsubscribed',
            paragraphs: ['You will not receive marketing messages from this sender again.'],
            kind: 'done',
          }),
        );
      },
    }),
  ];
}
