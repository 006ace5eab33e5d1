import { agentWrites } from '../agents/sensitiveWrites';
import { campaignWrites } from '../campaigns/sensitiveWrites';
import { segmentWrites } from '../contacts/sensitiveWrites';
import { artifactWrites } from '../deliveries/sensitiveWrites';
import { hookWrites } from '../hooks/sensitiveWrites';
import { mediaWrites } from '../media/sensitiveWrites';

/**
 * The registry of sensitive writes: the writes that, for an agent in manual mode, wait for a person
 * (DESIGN › Approvals): what reaches people outside the team, and what cannot be undone. Named
 * after the spec's warps; each feature declares its own (`services/<feature>/sensitiveWrites.ts`)
 * and this is the list of them. Its order is the order the API document lists the warps in.
 * An operation names its write with `access.sensitive: '<warp key>'`; services/deliveries/warps.ts
 * runs them (at once, or after approval).
 */
export const sensitiveWrites = {
  ...campaignWrites,
  ...artifactWrites,
  ...segmentWrites,
  ...mediaWrites,
  ...hookWrites,
  ...agentWrites,
};
export type SensitiveWarp = keyof typeof sensitiveWrites;
export const warpArgsSchema = <W extends SensitiveWarp>(warp: W) =>
  sensitiveWrites[warp].schema as (typeof sensitiveWrites)[W]['schema'];
