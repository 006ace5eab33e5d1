import { z } from 'zod';
import { type Caller, connectedAgent } from '../platform/operation';

/** The agent a path names: `/agents/{agentId}/…`. */
export const agentParams = z.object({ agentId: z.string() });

/** On MCP the knowledge tools act on the connected agent unless the call names another agent of the team. */
export const agentArg = {
  agentId: z.uuid().optional().describe('The agent (uuid); omitted: the connected agent (svc_agent_info)'),
};

/** An MCP call's arguments as the handler's input: the agent named, else the connected one. */
export const onAgent = <A extends { agentId?: string }>({ agentId, ...rest }: A, caller: Caller) => ({
  ...rest,
  agentId: agentId ?? connectedAgent(caller),
});
