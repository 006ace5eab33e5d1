import { z } from 'zod';
import type { Principal } from '../identity/principal';
import type { AppContext, TeamRef } from '../platform/context';
import { runSensitiveWrite } from '../deliveries/warps';
import { SensitiveWarp, warpArgsSchema } from '../catalog/sensitiveWrites';

/** Who runs a warp: the team, the credential behind the call, and the agent it acts as. */
export interface WarpCall {
  ctx: AppContext;
  team: TeamRef;
  principal: Principal;
  agent: { id: string; mode: 'auto' | 'manual' };
  /**
   * Set by a run that may be retried (a hook run, an automation step, a `warp.run` job): the id its
   * execution takes (services/platform/ids.ts `executionIdFor`), so that a retry finds that
   * execution rather than running the warp again (docs/WARPS.md › Runs with a key).
   */
  executionId?: string;
}

/**
 * How a warp meets an agent in manual mode:
 * - `none`: it runs at once (reads, and writes that stay inside the team);
 * - a sensitive write's name: it waits for a person through `requestApproval` (services/deliveries/warps.ts);
 * - `own-workflow`: its own workflow holds the approval gate (artifact delivery, a send to one contact).
 */
export type WarpApproval = 'none' | 'own-workflow' | { sensitiveWrite: SensitiveWarp };

export interface Warp<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: S;
  approval: WarpApproval;
  /**
   * It starts durable work that reads the rows it writes (a workflow): a private warp's step runs
   * it outside the step's transaction, so that the work never starts before its rows commit.
   * Warps with an approval other than `none` are taken to start work anyway.
   */
  startsWork?: boolean;
  /** Not runnable yet (answers 422 `not_available`): registered so the name is known. */
  unavailable?: string;
  /**
   * The effect, over the same service functions the API and MCP tools use. `own-workflow` warps
   * answer `{ executionId, status, ... }` of the execution they opened.
   */
  run(call: WarpCall, args: z.infer<S>): Promise<Record<string, unknown>>;
}

export const warp = <S extends z.ZodType>(definition: Warp<S>): Warp => definition as unknown as Warp;

export const warpId = z.string().min(1).max(100);

/** A warp that is one of the sensitive writes: its schema and its effect are the write's own (services/catalog/sensitiveWrites.ts). */
export function sensitiveWarp(name: SensitiveWarp, description: string): Warp {
  return {
    name,
    description,
    input: warpArgsSchema(name),
    approval: { sensitiveWrite: name },
    run: ({ ctx, team, principal, agent }, args) =>
      runSensitiveWrite(ctx, { team, agentId: agent.id, userId: principal.userId }, name, args),
  };
}
