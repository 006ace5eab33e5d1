import { z } from 'zod';
import type { AppSlug } from '../services/agents/apps';
import type { Tool } from './toolKit';
import { catalogTools, legacyTools } from '../services/catalog/features';
export type { Tool, ToolCall } from './toolKit';
export { caller } from './toolKit';

/** Every live tool. A tool that does not work yet is not here, so no client ever lists it. */
export const TOOLS: Tool[] = [...catalogTools];
// The step catalog of private warps (services/catalog/features.ts) sees the tools not yet declared as operations.
legacyTools.push(...TOOLS.filter((t) => !catalogTools.includes(t)));

/** The tools a connection sees: the core ones and those of the installed apps (or of one app, at /mcp/apps/{slug}). */
export function toolsFor(installed: Set<AppSlug>, onlyApp?: AppSlug): Tool[] {
  return TOOLS.filter((t) =>
    onlyApp ? t.app === onlyApp || t.name === 'check_warp_executions' : t.app === 'core' || installed.has(t.app),
  );
}

// Weak: a private app's tools are made per request.
const jsonSchemas = new WeakMap<Tool, { type: 'object'; [key: string]: unknown }>();

/** The JSON Schema a client sees, generated (once per tool) from the zod schema the service (and the HTTP API) validates with. */
export function inputJsonSchema(t: Tool): { type: 'object'; [key: string]: unknown } {
  let schema = jsonSchemas.get(t);
  if (!schema) {
    const { $schema: _ignored, ...generated } = z.toJSONSchema(t.input, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    schema = { ...generated, type: 'object' };
    jsonSchemas.set(t, schema);
  }
  return schema;
}
