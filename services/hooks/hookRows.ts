import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Mapping } from './mapping';

/** The `hooks` row and its JSON form, shared by user hooks (hooks.ts) and system hooks (systemHooks.ts). */

export const HOOK_SOURCES = ['internal', 'web', 'inbound'] as const;
export type HookSource = (typeof HOOK_SOURCES)[number];

export interface HookRow {
  seq: number;
  id: string;
  team_id: string;
  agent_id: string;
  source: HookSource;
  event: string;
  mapping: Mapping;
  warp: string | null;
  inputs: Record<string, unknown>;
  url: string | null;
  enabled: boolean;
  system_owned: boolean;
  automation_id: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export const hookSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  source: z.enum(HOOK_SOURCES),
  event: z.string(),
  mapping: z.record(z.string(), z.string()),
  warp: z.string().nullable(),
  inputs: z.record(z.string(), z.unknown()),
  url: z.string().nullable(),
  enabled: z.boolean(),
  systemOwned: z.boolean(),
  automationId: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type HookJson = z.infer<typeof hookSchema>;

export function presentHook(row: HookRow): HookJson {
  return {
    id: row.id,
    agentId: row.agent_id,
    source: row.source,
    event: row.event,
    mapping: row.mapping,
    warp: row.warp,
    inputs: row.inputs,
    url: row.url,
    enabled: row.enabled,
    systemOwned: row.system_owned,
    automationId: row.automation_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export const newHookId = () => `hk_${randomBytes(12).toString('hex')}`;
