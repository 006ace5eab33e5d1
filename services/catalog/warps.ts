import { artifactWarps } from '../deliveries/artifactWarps';
import { automationWarps } from '../automations/automationWarps';
import { campaignWarps } from '../campaigns/campaignWarps';
import type { Warp } from '../warps/warpKit';
export type { Warp, WarpCall } from '../warps/warpKit';

/**
 * Every built-in warp the spec names (MCP-behaviour rule 6, and `svc-automation-enroll` of the hooks):
 * the list of each feature's warp module (`services/<feature>/…Warps.ts`), in the order `execute` names them.
 */
export const WARPS: Warp[] = [...artifactWarps, ...campaignWarps, ...automationWarps];

const byName = new Map(WARPS.map((w) => [w.name, w]));
export const builtInWarp = (name: string): Warp | undefined => byName.get(name);
export const builtInWarpNames = WARPS.map((w) => w.name);
