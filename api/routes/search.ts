import { credentialAgentId } from '../../services/agents/agents';
import type { AppContext } from '../../services/platform/context';
import { pageSchema } from '../../services/platform/pagination';
import { searchHitSchema, searchQuerySchema, searchTeam } from '../../services/search/search';
import { authOf } from '../auth';
import { defineRoute, json, Route } from '../routeTable';

/** `GET /search`: the `search` tool over HTTP. */
export function searchRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/search',
      tag: 'Search',
      access: 'read',
      summary: "One ranked list of the team's contacts, artifacts, campaigns, and an agent's documents and memories",
      description:
        'Full text (each word as a prefix) fused with trigram similarity (misspellings) by reciprocal rank. ' +
        "Documents and memories are the agent's of `agentId`, else the OAuth token's agent, else the team's first.",
      query: searchQuerySchema,
      responses: { 200: json(pageSchema(searchHitSchema), 'Hits, best first, each with its type') },
      handler: async ({ req, query }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await searchTeam(ctx.db, team.id, query, credentialAgentId(principal)) };
      },
    }),
  ];
}
