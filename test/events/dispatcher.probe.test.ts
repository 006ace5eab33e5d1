import type { Knex } from 'knex';
import { dispatcherHasWork } from '../../services/events/dispatcher';
import { privateDatabase, type PrivateDatabase } from '../support/ownDatabase';

/**
 * The idle dispatcher's probe (docs/EVENTS.md › The dispatcher's loop) against a database of the
 * test's own, where no other suite leaves pending rows: for each step, a row of its kind waiting
 * makes the probe say yes, and the same row once done does not. Rows are written with foreign-key
 * checks off (the probe reads none of the rows they point to) and rolled back.
 */
describe("the dispatcher's probe", () => {
  let own: PrivateDatabase;
  beforeAll(async () => {
    own = await privateDatabase('probe');
  });
  afterAll(async () => {
    await own?.drop();
  });

  const team = '00000000-0000-4000-8000-000000000001';
  /** Each step's pending row, and what marks it done. */
  const kinds: { step: string; table: string; row: Record<string, unknown>; done: Record<string, unknown> }[] = [
    {
      step: 'fan out',
      table: 'platform_events',
      row: { id: 'evt_probe', team_id: team, type: 'contact.created', data: '{}' },
      done: { dispatched_at: new Date() },
    },
    {
      step: 'start deliveries',
      table: 'webhook_deliveries',
      row: { id: 'whd_probe', team_id: team, endpoint_id: 'whe_x', event_id: 'evt_x', event_type: 'contact.created' },
      done: { workflow_started_at: new Date() },
    },
    {
      step: 'start hook runs',
      table: 'hook_runs',
      row: { id: 'hkr_probe', team_id: team, hook_id: 'hk_x', event_key: 'event:evt_x', inputs: '{}' },
      done: { workflow_started_at: new Date() },
    },
    {
      step: 'form cohorts',
      table: 'automation_enrollments',
      row: {
        id: 'enr_probe',
        team_id: team,
        automation_id: 'aut_x',
        version: 1,
        contact_id: 'ct_x',
        enrolled_by: 'api',
      },
      done: { cohort_id: 'coh_x', workflow_started_at: new Date() },
    },
    {
      step: 'start cohorts',
      table: 'automation_cohorts',
      row: { id: 'coh_probe', team_id: team, automation_id: 'aut_x', version: 1, start_step: 0 },
      done: { workflow_started_at: new Date() },
    },
    {
      step: 'send signals',
      table: 'automation_signals',
      row: { id: 'sig_probe', enrollment_id: 'enr_x', event_id: 'evt_x', event_type: 'contact.created' },
      done: { sent_at: new Date() },
    },
  ];

  async function inRolledBack(work: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
    const trx = await own.db.transaction();
    try {
      await trx.raw('SET LOCAL session_replication_role = replica');
      await work(trx);
    } finally {
      await trx.rollback();
    }
  }

  it('says no on a database with nothing waiting', async () => {
    expect(await dispatcherHasWork(own.db)).toBe(false);
  });

  it.each(kinds)("says yes while a row of '$step' waits, and no once it is done", async ({ table, row, done }) => {
    await inRolledBack(async (trx) => {
      await trx(table).insert(row);
      expect(await dispatcherHasWork(trx)).toBe(true);
      await trx(table).where({ id: row.id }).update(done);
      expect(await dispatcherHasWork(trx)).toBe(false);
    });
  });

  it('says no for an enrollment that ended before it was started', async () => {
    await inRolledBack(async (trx) => {
      const enrollment = kinds.find((k) => k.table === 'automation_enrollments')!.row;
      await trx('automation_enrollments').insert({ ...enrollment, status: 'exited' });
      expect(await dispatcherHasWork(trx)).toBe(false);
    });
  });
});
