import { defineOperation, Feature } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import { getTeam, listPublicTeams, publicTeamSchema, teamSchema, teamUpdateSchema } from '../platform/teams';
import { updateTeamAsAdmin } from './admin';
import { createTeam, teamCreatedSchema, teamCreateSchema } from './createTeam';
import { updateTeamPlace, updateTeamSettings } from './placeAndSettings';
import { placePatchSchema, settingsPatchSchema } from './schemas';

const tag = 'Team';

/**
 * The team of `X-Team-Slug`: its profile, place and settings (changed by a team admin, on HTTP and
 * MCP alike: in an agent's turn the admin is the person whose message started it). Creating a team
 * is a person's act, never a turn's: over HTTP it is `POST /teams`, a user-level route without a
 * team header (api/routes/team.ts).
 */
export const team: Feature = {
  name: 'team',
  operations: [
    defineOperation({
      name: 'team.get',
      access: { level: 'read', app: 'core' },
      output: teamSchema,
      handler: (ctx, { team }) => getTeam(ctx.db, team.id),
      http: {
        method: 'get',
        path: '/team',
        tag,
        summary: 'The team of X-Team-Slug',
        status: 200,
        answer: 'The team',
      },
    }),
    defineOperation({
      name: 'team.update',
      access: { level: 'write', app: 'core' },
      input: teamUpdateSchema,
      output: teamSchema,
      handler: (ctx, { team, principal }, input) => updateTeamAsAdmin(ctx.db, team.id, principal, input),
      http: {
        method: 'patch',
        path: '/team',
        tag,
        summary: 'Rename the team, describe it, or list it publicly (list_public_teams); a team admin only',
        status: 200,
        answer: 'The team',
        body: { schema: teamUpdateSchema },
      },
      mcp: {
        name: 'update_team',
        title: 'Update the team',
        description:
          'Renames the team, changes its description, or lists it publicly (list_public_teams). Needs a team admin. ' +
          'Answers the team.',
      },
    }),
    defineOperation({
      name: 'team.updatePlace',
      access: { level: 'write', app: 'core' },
      input: placePatchSchema,
      output: teamSchema,
      handler: (ctx, { team, principal }, input) => updateTeamPlace(ctx.db, team.id, principal, input),
      http: {
        method: 'patch',
        path: '/team/place',
        tag,
        summary: "Set the team's address, locale and time zone (JSON merge patch: null removes); a team admin only",
        status: 200,
        answer: 'The team',
        body: { schema: placePatchSchema },
      },
      mcp: {
        name: 'update_team_place',
        title: "Set the team's place",
        description:
          'Sets where the team is: address (line1, line2, city, region, postalCode, country as ISO code), locale ' +
          '(BCP 47, e.g. "en-GB") and timezone (IANA, e.g. "Europe/Amsterdam"). Fields left out stay; null removes ' +
          'one. Needs a team admin. Answers the team.',
      },
    }),
    defineOperation({
      name: 'team.updateSettings',
      access: { level: 'write', app: 'core' },
      input: settingsPatchSchema,
      output: teamSchema,
      handler: (ctx, { team, principal }, input) => updateTeamSettings(ctx.db, team.id, principal, input),
      http: {
        method: 'patch',
        path: '/team/settings',
        tag,
        summary: "Change the team's settings (JSON merge patch: null removes); a team admin only",
        status: 200,
        answer: 'The team',
        body: { schema: settingsPatchSchema },
      },
      mcp: {
        name: 'update_team_settings',
        title: "Change the team's settings",
        description:
          'Changes team settings: brand.color (#rrggbb), brand.logoMediaId (a media id), studio.artifactType and ' +
          'studio.artifactStatus (what studio_export creates). Fields left out stay; null removes one. Needs a team ' +
          'admin. Answers the team.',
      },
    }),
    defineOperation({
      name: 'team.create',
      // A turn acts for its own team; it must not create tenants on someone's behalf.
      access: { level: 'write', app: 'core', inTurns: 'never' },
      input: teamCreateSchema,
      output: teamCreatedSchema,
      // The caller's team is not read: the new team is the person's (principal), not the connection's.
      handler: (ctx, { principal }, input) => createTeam(ctx.db, principal, input),
      mcp: {
        name: 'create_team',
        title: 'Create a team',
        description:
          'Creates a new team with you (the signed-in person) as its owner and a first agent; answers the team and ' +
          'the agent. This connection keeps acting for the current team: use the new one with an API token and ' +
          'X-Team-Slug: <slug>, or sign in again and pick it. Retrying the same slug and name answers the same team.',
      },
    }),
    defineOperation({
      name: 'team.listPublic',
      access: { level: 'read', app: 'core' },
      input: pageQuerySchema,
      output: pageSchema(publicTeamSchema),
      // Every team's public ones, whichever team the caller acts for.
      handler: (ctx, _caller, page) => listPublicTeams(ctx.db, page),
      mcp: {
        name: 'list_public_teams',
        title: 'List public teams',
        description: 'Teams that chose to be listed publicly (slug, name, description), a page at a time.',
      },
    }),
  ],
};
