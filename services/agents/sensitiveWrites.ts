import { sensitive } from '../warps/sensitiveWrite';
import { clearSecret, secretKeyInputSchema } from './agentSecrets';

/** The agents' sensitive write (services/warps/sensitiveWrite.ts). */
export const agentWrites = {
  'secret-clear': sensitive({
    schema: secretKeyInputSchema,
    describe: (a) => `Clear the agent's secret ${a.key}`,
    run: async (ctx, caller, a) => ({ secret: await clearSecret(ctx.db, caller.team.id, caller.agentId, a.key) }),
  }),
};
