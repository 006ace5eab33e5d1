/**
 * The baseline of bench (d), as its own process (like the worker): send a campaign's pending
 * recipients to the provider and mark each, CONCURRENCY at a time, batches of 500, no Temporal.
 * Env: DATABASE_URL, CAMPAIGN_ID, PROVIDER_URL, CONCURRENCY. Prints the seconds it took.
 */
import { createDb } from '../db/knex';

async function main(): Promise<void> {
  const db = createDb(process.env.DATABASE_URL!, { max: 20 });
  const campaignId = process.env.CAMPAIGN_ID!;
  const concurrency = Number(process.env.CONCURRENCY ?? 20);
  const started = performance.now();
  for (;;) {
    const batch = await db('campaign_recipients')
      .where({ campaign_id: campaignId, status: 'pending' })
      .orderBy('seq')
      .limit(500)
      .select('contact_id', 'address');
    if (batch.length === 0) break;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < batch.length) {
          const r = batch[next++];
          const res = await fetch(`${process.env.PROVIDER_URL}/emails`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: 'Bearer k',
              'idempotency-key': `${campaignId}:${r.contact_id}:1`,
            },
            body: JSON.stringify({ from: 'news@bench.example', to: [r.address], subject: 'Hi', text: 'Hello' }),
          });
          const body = (await res.json()) as { id: string };
          await db('campaign_recipients')
            .where({ campaign_id: campaignId, contact_id: r.contact_id, status: 'pending' })
            .update({ status: 'sent', provider_message_id: body.id, sent_at: db.fn.now() });
        }
      }),
    );
  }
  process.stdout.write(`${((performance.now() - started) / 1000).toFixed(3)}\n`);
  await db.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
