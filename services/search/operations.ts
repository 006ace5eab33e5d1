import { credentialAgentId } from '../agents/agents';
import { defineOperation, Feature } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import { searchHitSchema, searchQuerySchema, searchTeam, searchToolSchema } from './search';

/** Search: one ranked list of the team's contacts, artifacts, campaigns, and an agent's documents and memories. */
export const search: Feature = {
  name: 'search',
  operations: [
    defineOperation({
      name: 'search.team',
      access: { level: 'read', app: 'core' },
      input: searchToolSchema,
      output: pageSchema(searchHitSchema),
      // The agent searched by default: MCP's connected agent; on HTTP the OAuth token's agent (else the team's first).
      handler: (ctx, { team, principal, agentId }, query) =>
        searchTeam(ctx.db, team.id, query, agentId ?? credentialAgentId(principal)),
      http: {
        method: 'get',
        path: '/search',
        tag: 'Search',
        summary: "One ranked list of the team's contacts, artifacts, campaigns, and an agent's documents and memories",
        description:
          'Full text (each word as a prefix) fused with trigram similarity (misspellings) by reciprocal rank. ' +
          "Documents and memories are the agent's of `agentId`, else the OAuth token's agent, else the team's first.",
        status: 200,
        answer: 'Hits, best first, each with its type',
        query: searchQuerySchema,
      },
      mcp: {
        name: 'search',
        title: 'Search the team',
        description:
          "One ranked list over the team's contacts, artifacts and campaigns and the agent's knowledge documents and " +
          'memories: each hit has a type, id, title and snippet. Words match as prefixes and misspelt names still ' +
          'match. Narrow with types; page with cursor. Then open a hit with its own tool (get_artifact, campaign_stats, …).',
      },
    }),
  ],
};
