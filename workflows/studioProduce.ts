import { ActivityFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import {
  progress,
  StudioActivities,
  StudioProduceArgs,
  StudioProduceProgress,
  StudioProductionStatus,
} from './contracts/studioProduce';

const { produceStudioDraft } = proxyActivities<StudioActivities>({
  // A long deliverable from a slow model; a worker that died is noticed by the timeout.
  startToCloseTimeout: '5 minutes',
  // A model that is down or rate-limited (429, 5xx, a cut stream) is asked again, a few times.
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});
const { failStudioProduction } = proxyActivities<StudioActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 20 },
});

/** One production: one activity that asks the model and records the draft; a failure is recorded too. */
export async function studioProduceWorkflow({ productionId }: StudioProduceArgs): Promise<StudioProduceProgress> {
  let status: StudioProductionStatus = 'running';
  setHandler(progress, () => ({ status }));
  try {
    ({ status } = await produceStudioDraft(productionId));
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failStudioProduction(productionId, {
      error: {
        code: 'model_unavailable',
        message: `The model did not answer after several attempts: ${err.cause?.message ?? err.message}`,
      },
    });
    status = 'failed';
  }
  return { status };
}
