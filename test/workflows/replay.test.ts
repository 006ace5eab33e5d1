import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';

/**
 * Replays saved histories of every workflow against today's workflow code. A change that would
 * break running workflows (non-determinism) fails here. Refresh the histories on purpose with
 * `RECORD_HISTORIES=1 npx jest test/workflows` after a deliberate, versioned change.
 */
describe('workflow determinism (replay)', () => {
  const dir = path.join(__dirname, 'replay', 'histories');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();

  it('has saved histories for each kind of job run, each way a delivery or another approval ends, campaign runs, journeys, rooms and turns', () => {
    expect(files).toEqual([
      'campaign-contact-approved.json',
      'campaign-schedule-cancelled.json',
      'campaign-send.json',
      // Journeys as cohorts (the per-contact enrollment-*.json of before still replay: their runs finish as they are).
      'cohort-branch.json',
      'cohort-journey.json',
      'cohort-wait-event.json',
      'contacts-export-as-activity.json',
      'contacts-export-by-patch.json',
      // A run the API started with onePageExportFirst, run by a worker from before the flag (a rolling deploy).
      'contacts-export-flag-run-by-older-worker.json',
      'contacts-export-three-local-activities.json',
      'contacts-export.json',
      'contacts-import-cancelled.json',
      'contacts-import.json',
      'delivery-auto.json',
      'delivery-declined.json',
      'delivery-expired.json',
      'delivery-manual-approved.json',
      'enrollment-branch-warp.json',
      'enrollment-event-late.json',
      'enrollment-event.json',
      'enrollment-exit.json',
      'enrollment-journey.json',
      'enrollment-timeout.json',
      'hook-run-failed.json',
      'hook-run.json',
      'knowledge-ingest.json',
      'private-warp.json',
      'room-approval-approved.json',
      'room-approval-declined.json',
      'room-approval-expired.json',
      // A run that continued as new right after its last turn, before it waited for the next message.
      'room-continued-as-new-after-a-turn.json',
      'room-continued-as-new-with-the-next-message.json',
      'room-two-turns-as-children.json',
      'room-two-turns.json',
      'studio-produce-refused.json',
      'studio-produce.json',
      'turn-answer.json',
      'turn-approval-approved.json',
      'turn-approval-declined.json',
      'turn-approval-expired.json',
      'warp-approved.json',
      'warp-declined.json',
      'warp-expired.json',
      // Its children carry the batch's team (DELIVERIES_CARRY_THEIR_TEAM); webhook-batch.json is from before.
      'webhook-batch-with-team.json',
      'webhook-batch.json',
      'webhook-delivery-after-batch.json',
      'webhook-delivery-gone.json',
      'webhook-delivery-retried.json',
      // Started with a team's retry settings in its args (maxAttempts 3, waits [1, 2]).
      'webhook-delivery-retry-settings.json',
    ]);
  });

  it('replays every saved history without a determinism error', async () => {
    const histories = files.map((file) => ({
      workflowId: path.basename(file, '.json'),
      // The worker converts the JSON (as the UI and CLI export it) itself.
      history: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')),
    }));
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } },
      histories,
    )) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
