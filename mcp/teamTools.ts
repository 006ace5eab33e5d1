import { teamUpdateSchema } from '../services/platform/teams';
import { searchTeam, searchToolSchema } from '../services/search/search';
import { updateTeamAsAdmin } from '../services/teams/admin';
import { createTeam, teamCreateSchema } from '../services/teams/createTeam';
import { updateTeamPlace, updateTeamSettings } from '../services/teams/placeAndSettings';
import { placePatchSchema, settingsPatchSchema } from '../services/teams/schemas';
import { tool, Tool } from './toolKit';

/**
 * Team admin over MCP: the same service functions as `POST /teams` and `PATCH /team…`. Changing
 * the team needs a team admin (owner or admin) behind the credential; in an agent's turn that is
 * the person whose message started it. Creating a team is a person's act, never a turn's.
 */
export const teamTools: Tool[] = [
  tool({
    name: 'create_team',
    title: 'Create a team',
    description:
      'Creates a new team with you (the signed-in person) as its owner and a first agent; answers the team and ' +
      'the agent. This connection keeps acting for the current team: use the new one with an API token and ' +
      'X-Team-Slug: <slug>, or sign in again and pick it. Retrying the same slug and name answers the same team.',
    app: 'core',
    access: 'write',
    // A turn acts for its own team; it must not create tenants on someone's behalf.
    inTurns: 'never',
    input: teamCreateSchema,
    run: ({ ctx, principal }, input) => createTeam(ctx.db, principal, input),
  }),
  tool({
    name: 'update_team',
    title: 'Update the team',
    description:
      'Renames the team, changes its description, or lists it publicly (list_public_teams). Needs a team admin. ' +
      'Answers the team.',
    app: 'core',
    access: 'write',
    input: teamUpdateSchema,
    run: ({ ctx, team, principal }, input) => updateTeamAsAdmin(ctx.db, team.id, principal, input),
  }),
  tool({
    name: 'update_team_place',
    title: "Set the team's place",
    description:
      'Sets where the team is: address (line1, line2, city, region, postalCode, country as ISO code), locale ' +
      '(BCP 47, e.g. "en-GB") and timezone (IANA, e.g. "Europe/Amsterdam"). Fields left out stay; null removes ' +
      'one. Needs a team admin. Answers the team.',
    app: 'core',
    access: 'write',
    input: placePatchSchema,
    run: ({ ctx, team, principal }, input) => updateTeamPlace(ctx.db, team.id, principal, input),
  }),
  tool({
    name: 'update_team_settings',
    title: "Change the team's settings",
    description:
      'Changes team settings: brand.color (#rrggbb), brand.logoMediaId (a media id), studio.artifactType and ' +
      'studio.artifactStatus (what studio_export creates). Fields left out stay; null removes one. Needs a team ' +
      'admin. Answers the team.',
    app: 'core',
    access: 'write',
    input: settingsPatchSchema,
    run: ({ ctx, team, principal }, input) => updateTeamSettings(ctx.db, team.id, principal, input),
  }),
];

/** `search`: the team's contacts, artifacts and campaigns and the connected agent's documents and memories, one ranked list. */
export const searchTool: Tool = tool({
  name: 'search',
  title: 'Search the team',
  description:
    "One ranked list over the team's contacts, artifacts and campaigns and the agent's knowledge documents and " +
    'memories: each hit has a type, id, title and snippet. Words match as prefixes and misspelt names still ' +
    'match. Narrow with types; page with cursor. Then open a hit with its own tool (get_artifact, campaign_stats, …).',
  app: 'core',
  access: 'read',
  input: searchToolSchema,
  run: ({ ctx, team, agentId }, query) => searchTeam(ctx.db, team.id, query, agentId),
});
