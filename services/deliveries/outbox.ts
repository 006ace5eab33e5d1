import { z } from 'zod';
import type { Db } from '../../db/knex';
import { keysetPage, Page, PageQuery } from '../platform/pagination';

export const outboxMessageSchema = z.object({
  id: z.string(),
  channel: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  subject: z.string().nullable(),
  body: z.string(),
  createdAt: z.iso.datetime(),
});

/** What the sandbox provider "sent" for the team, oldest first. */
export function listOutbox(
  db: Db,
  teamId: string,
  page: PageQuery,
): Promise<Page<z.infer<typeof outboxMessageSchema>>> {
  return keysetPage(
    db('outbox').where({ team_id: teamId }).select('*'),
    page,
    (row: {
      seq: number;
      id: string;
      channel: string;
      from_address: string | null;
      to_address: string;
      subject: string | null;
      body: string;
      created_at: Date;
    }) => ({
      id: row.id,
      channel: row.channel,
      from: row.from_address,
      to: row.to_address,
      subject: row.subject,
      body: row.body,
      createdAt: row.created_at.toISOString(),
    }),
  );
}
