import type { AppContext } from '../platform/context';
import { failProduction, produceDraft } from './produce';
import type { StudioActivities } from '../../workflows/contracts/studioProduce';

export interface StudioActivityDeps {
  appContext: AppContext;
}

/** The Studio's activities: one production's model call and its record (services/studio/produce.ts). */
export function createStudioActivities({ appContext }: StudioActivityDeps): StudioActivities {
  return {
    produceStudioDraft: (productionId) => produceDraft(appContext, productionId),
    failStudioProduction: (productionId, error) => failProduction(appContext, productionId, error),
  };
}
