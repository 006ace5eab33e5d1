import { defineOperation, Feature } from '../platform/operation';
import { apiTokenCreatedSchema, apiTokenCreateSchema, createApiToken } from './apiTokens';
import { requireUser } from './principal';

/**
 * API tokens over MCP: the signed-in user mints one. Over HTTP a user's tokens are user-level
 * routes without a team header (`user:read`/`user:write`, api/routes/apiTokens.ts), which an
 * operation's team access does not describe.
 */
export const apiTokens: Feature = {
  name: 'apiTokens',
  operations: [
    defineOperation({
      name: 'apiTokens.create',
      // Minting a credential is a person's act, never a turn's.
      access: { level: 'write', app: 'core', inTurns: 'never' },
      input: apiTokenCreateSchema,
      output: apiTokenCreatedSchema,
      handler: (ctx, { principal }, input) => createApiToken(ctx.db, requireUser(principal), input),
      mcp: {
        name: 'create_api_token',
        title: 'Create an API token',
        description:
          'Creates an API token for the signed-in user (for the HTTP API: Authorization: Bearer <token> with ' +
          "X-Team-Slug). The token is shown once in this answer; it acts with all of the user's rights until " +
          'revoked at /v1/api-tokens.',
      },
    }),
  ],
};
