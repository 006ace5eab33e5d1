import { inputJsonSchema } from '../services/catalog/tool';
import { TOOLS, toolsFor } from '../services/catalog/features';
import { createAutomationActivities } from '../services/automations/activities';
import {
  type CampaignActivityDeps,
  createCampaignActivities,
  createCampaignContactActivities,
  createTemplateActivities,
} from '../services/campaigns/activities';
import {
  createDeliveryActivities,
  createWarpActivities,
  type DeliveryActivityDeps,
} from '../services/deliveries/activities';
import { createHookActivities } from '../services/hooks/activities';
import { createJobActivities, type JobActivityDeps } from '../services/jobs/activities';
import { createRoomActivities } from '../services/rooms/activities';
import type { ToolRegistry } from '../services/rooms/turnTools';
import { createStudioActivities } from '../services/studio/activities';
import { createWarpRunActivities } from '../services/warps/activities';
import {
  createWebhookActivities,
  createWebhookBatchActivities,
  type WebhookActivityDeps,
} from '../services/webhooks/activities';

/**
 * The worker's activity registry: a list of the features' activity modules
 * (`services/<feature>/activities.ts`, each thin over its feature's services). Activity names are
 * the keys the modules answer, which histories and workflow contracts name: a module keeps them.
 * This module stays outside services/ because it is where the MCP layer is handed to the turns
 * (`turnToolRegistry`): services never import mcp/.
 */

/** The tools a turn may call: the MCP surface's own registry. */
export const turnToolRegistry: ToolRegistry = {
  toolsFor: (installed) => toolsFor(installed),
  all: TOOLS,
  inputSchema: inputJsonSchema,
};

export type ActivityDeps = JobActivityDeps & DeliveryActivityDeps & CampaignActivityDeps & WebhookActivityDeps;

/** Every activity of the worker's main task queue. */
export function createActivities(deps: ActivityDeps) {
  const withTools = { ...deps, tools: turnToolRegistry };
  const modules = [
    createJobActivities(deps),
    createDeliveryActivities(deps),
    createWarpActivities(deps),
    createCampaignActivities(deps),
    createTemplateActivities(deps),
    createCampaignContactActivities(deps),
    createRoomActivities(withTools),
    createWarpRunActivities(deps),
    createWebhookActivities(deps),
    createStudioActivities(deps),
    createHookActivities(deps),
    createAutomationActivities(deps),
  ];
  const names = modules.flatMap((m) => Object.keys(m));
  const twice = names.filter((name, i) => names.indexOf(name) !== i);
  if (twice.length) throw new Error(`Activities registered twice: ${twice.join(', ')}`);
  return Object.assign({}, ...modules) as UnionToIntersection<(typeof modules)[number]>;
}

/** The webhook task queue's one activity (workflows/contracts/webhookBatch.ts › webhookTaskQueue). */
export const createWebhookQueueActivities = createWebhookBatchActivities;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
