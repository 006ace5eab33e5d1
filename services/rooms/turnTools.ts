import type { Tool } from '../catalog/tool';
import type { AppSlug } from '../agents/apps';
import type { ChatTool } from '../agents/models/chatModel';
import type { TurnRecord } from './turnRecord';

/**
 * The tools of a turn are the MCP surface's own registry (what the team's installed apps offer).
 * The worker hands it in (activities/index.ts › turnToolRegistry, to services/rooms/activities.ts), so services never import the MCP layer.
 */
export interface ToolRegistry {
  toolsFor(installed: Set<AppSlug>): Tool[];
  /** Every tool, installed or not: a call to a tool of an app the team removed meanwhile is told so. */
  all: Tool[];
  /** The JSON Schema a client sees for the tool's arguments. */
  inputSchema(tool: Tool): Record<string, unknown>;
}

/** What a turn may call: every tool of the team's catalog but those kept out of turns (`inTurns: 'never'`). */
export const offeredInTurns = (tool: Tool) => tool.inTurns !== 'never';

export interface TurnTool {
  tool: Tool;
  chat: ChatTool;
  /** The warp a person approves first: a sensitive write of an agent in manual mode. */
  approval: string | null;
}

/**
 * The tools a turn offers its model. None for an outside caller's turn: its tools act with the
 * team's rights on the team's data, and a stranger's message must not steer them.
 */
export function turnTools(registry: ToolRegistry, turn: TurnRecord): TurnTool[] {
  if (turn.callerTeamId) return [];
  return registry
    .toolsFor(turn.installedApps)
    .filter(offeredInTurns)
    .map((tool) => ({
      tool,
      chat: { name: tool.name, description: tool.description, inputSchema: registry.inputSchema(tool) },
      approval: approvalWarp(tool, turn),
    }));
}

export const approvalWarp = (tool: Tool | undefined, turn: TurnRecord): string | null =>
  tool?.warp && turn.agent.mode === 'manual' ? tool.warp : null;
