import { campaigns } from '../campaigns/operations';
import { segments } from '../contacts/segmentOperations';
import type { Feature } from '../platform/operation';
import { Tool, toolOf } from './tool';

/**
 * Every feature's operations: the one list the HTTP route table (api/app.ts, in the API
 * document's order), the MCP catalog and the tools of agents' turns are made from.
 */
export const FEATURES: Feature[] = [segments, campaigns];

/** The operations with an MCP face, as tools. */
export const catalogTools: Tool[] = FEATURES.flatMap((feature) =>
  feature.operations.filter((operation) => operation.mcp).map(toolOf),
);
