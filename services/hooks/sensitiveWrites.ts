import { z } from 'zod';
import { sensitive } from '../warps/sensitiveWrite';

/** The agent hooks' sensitive write (services/warps/sensitiveWrite.ts). */
export const hookWrites = {
  // An external runtime's permission.request (./lifecycle.ts): approving lets the agent use the tool; nothing else runs.
  'agent-permission': sensitive({
    schema: z.strictObject({
      tool: z.string().min(1).max(200),
      input: z.unknown().optional(),
      sessionId: z.string().max(200).optional(),
      requestId: z.string().max(200).optional(),
    }),
    describe: (a) => `Let the agent's runtime use ${a.tool}`,
    run: async (_ctx, _caller, a) => ({ approved: true, tool: a.tool }),
  }),
};
