import { artifactWarps } from './artifactWarps';
import { automationWarps } from './automationWarps';
import { campaignWarps } from './campaignWarps';
import type { Warp } from './warpKit';
export type { Warp, WarpCall } from './warpKit';

/** Every built-in warp the spec names (MCP-behaviour rule 6, and `svc-automation-enroll` of the hooks). */
export const WARPS: Warp[] = [...artifactWarps, ...campaignWarps, ...automationWarps];

const byName = new Map(WARPS.map((w) => [w.name, w]));
export const builtInWarp = (name: string): Warp | undefined => byName.get(name);
export const builtInWarpNames = WARPS.map((w) => w.name);
