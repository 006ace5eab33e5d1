import type { Tool } from './toolKit';

/** Talking to the agent: prompt_agent and the rooms its conversations live in. */
export const roomTools: Tool[] = [];
