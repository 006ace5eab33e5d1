import type { Tool } from './toolKit';

/** The agent's own mind: memories, skills, knowledge documents and its character (issue 15 § 6). */
export const agentKnowledgeTools: Tool[] = [];
