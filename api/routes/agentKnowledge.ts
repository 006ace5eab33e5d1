import type { AppContext } from '../../services/platform/context';
import type { Route } from '../routeTable';

/** An agent's memories, skills, knowledge documents and character over HTTP (the MCP tools' twins). */
export function agentKnowledgeRoutes(_ctx: AppContext): Route[] {
  return [];
}
