export { caller, sensitiveTool, tool } from '../services/catalog/tool';
export type { Tool, ToolCall } from '../services/catalog/tool';
export type { InTurns } from '../services/platform/operation';
export { id, PENDING_NOTE } from '../services/platform/operation';
