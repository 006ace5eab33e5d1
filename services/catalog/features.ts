import { campaigns } from '../campaigns/operations';
import { segments } from '../contacts/segmentOperations';
import { webhooks } from '../webhooks/operations';
import { hooks } from '../hooks/operations';
import { automations } from '../automations/operations';
import { forms } from '../forms/operations';
import { contactOrders, shop } from '../shop/operations';
import { artifacts } from '../deliveries/artifactOperations';
import { warpExecutions } from '../deliveries/executionOperations';
import { messageLog } from '../deliveries/messageLogOperations';
import { team } from '../teams/operations';
import { search } from '../search/operations';
import { contacts } from '../contacts/operations';
import { jobs } from '../jobs/operations';
import { apiTokens } from '../identity/tokenOperations';
import { media } from '../media/operations';
import { studio } from '../studio/operations';
import { rooms } from '../rooms/operations';
import { warpsOf } from '../warps/operations';
import { privateApps } from '../warps/privateAppOperations';
import { stepCatalogOf } from '../warps/stepCatalog';
import { agents } from '../agents/agentOperations';
import { agentKnowledge } from '../agents/knowledgeOperations';
import { inbox } from '../inbox/operations';
import { apps } from '../agents/appOperations';
import type { AppSlug } from '../agents/apps';
import type { Feature } from '../platform/operation';
import { Tool, toolOf } from './tool';

/** What a private warp's tool step can call: every tool (read at each call) and every built-in warp. */
export const stepCatalog = stepCatalogOf(() => TOOLS);
export const warps = warpsOf(stepCatalog);

/**
 * Every feature's operations: the one list the HTTP route table (api/app.ts, in the API
 * document's order), the MCP catalog and the tools of agents' turns are made from.
 */
export const FEATURES: Feature[] = [
  segments,
  campaigns,
  webhooks,
  hooks,
  automations,
  forms,
  shop,
  artifacts,
  warpExecutions,
  messageLog,
  team,
  search,
  contacts,
  contactOrders,
  jobs,
  apiTokens,
  media,
  studio,
  rooms,
  warps,
  privateApps,
  agents,
  agentKnowledge,
  inbox,
  apps,
];

/** Every live tool: the operations with an MCP face. A tool that does not work yet is not here, so no client ever lists it. */
export const TOOLS: Tool[] = FEATURES.flatMap((feature) =>
  feature.operations.filter((operation) => operation.mcp).map(toolOf),
);

/** The tools a connection sees: the core ones and those of the installed apps (or of one app, at /mcp/apps/{slug}). */
export function toolsFor(installed: Set<AppSlug>, onlyApp?: AppSlug): Tool[] {
  return TOOLS.filter((t) =>
    onlyApp ? t.app === onlyApp || t.name === 'check_warp_executions' : t.app === 'core' || installed.has(t.app),
  );
}
