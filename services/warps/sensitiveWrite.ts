import { z } from 'zod';
import type { AppContext, TeamRef } from '../platform/context';
import type { AppError } from '../platform/errors';

/** Who asks for a write: the team, the agent it acts as, and the user behind the credential. */
export interface WarpCaller {
  team: TeamRef;
  agentId: string;
  userId: string | null;
}

export const writeId = z.string().min(1).max(100);

/**
 * A write that, for an agent in manual mode, waits for a person (DESIGN › Approvals). Each feature
 * declares its own in `services/<feature>/sensitiveWrites.ts`; services/catalog/sensitiveWrites.ts
 * lists them, and services/deliveries/warps.ts runs them.
 */
export interface SensitiveWrite<S extends z.ZodType> {
  schema: S;
  /** One line for the person who approves. */
  describe(args: z.infer<S>): string;
  /** `executionId`: the approved execution this run belongs to (null when the agent is in auto mode). */
  run(
    ctx: AppContext,
    caller: WarpCaller,
    args: z.infer<S>,
    executionId: string | null,
  ): Promise<Record<string, unknown>>;
  /** On a retried run, the error that says the first attempt already did the write. */
  alreadyDone?(err: AppError): boolean;
}

export const sensitive = <S extends z.ZodType>(write: SensitiveWrite<S>) => write;

/** Deleting one thing by its id; a retry that finds it gone already did it. */
export function deletion<K extends string>(
  idKey: K,
  what: string,
  remove: (ctx: AppContext, team: TeamRef, id: string) => Promise<void>,
) {
  const schema = z.strictObject({ [idKey]: writeId.describe(`The ${what}'s id`) } as { [P in K]: typeof writeId });
  return sensitive({
    schema,
    describe: (a) => `Delete ${what} ${(a as Record<K, string>)[idKey]}`,
    run: async (ctx, caller, a) => {
      const target = (a as Record<K, string>)[idKey];
      await remove(ctx, caller.team, target);
      return { deleted: true, [idKey]: target };
    },
    alreadyDone: (err) => err.code === 'not_found',
  });
}
