import { deliveryListQuerySchema, listDeliveries } from './deliveryRecords';
import { deliverySchema } from './deliveryTypes';
import { listOutboundMessages, messageListQuerySchema, outboundMessageSchema } from './messageLog';
import { listOutbox, outboxMessageSchema } from './outbox';
import { defineOperation, Feature } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';

const tag = 'Warp executions';

/** What was sent: delivery records, the team's message log, and the sandbox outbox. */
export const messageLog: Feature = {
  name: 'messageLog',
  operations: [
    defineOperation({
      name: 'messageLog.deliveries',
      access: { level: 'read', app: 'core' },
      output: pageSchema(deliverySchema),
      handler: (ctx, { team }, query) => listDeliveries(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/deliveries',
        tag,
        summary: 'Delivery records (filters: executionId, contactId, artifactId)',
        status: 200,
        answer: 'A page of delivery records',
        query: deliveryListQuerySchema,
      },
    }),
    defineOperation({
      name: 'messageLog.messages',
      access: { level: 'read', app: 'core' },
      output: pageSchema(outboundMessageSchema),
      handler: (ctx, { team }, query) => listOutboundMessages(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/messages',
        tag,
        summary:
          'Every message a provider was asked to send for the team (campaign recipients, test sends, deliveries), newest first; filters status, channel, sourceKind, sourceId, contactId',
        status: 200,
        answer: 'A page of messages',
        query: messageListQuerySchema,
      },
    }),
    defineOperation({
      name: 'messageLog.outbox',
      access: { level: 'read', app: 'core' },
      output: pageSchema(outboxMessageSchema),
      handler: (ctx, { team }, page) => listOutbox(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/outbox',
        tag,
        summary: 'What the sandbox provider sent for the team',
        status: 200,
        answer: 'A page of messages',
        query: pageQuerySchema,
      },
    }),
  ],
};
