import { connectedAgent, defineOperation, Feature } from '../platform/operation';
import { exportProduction, productionExportedSchema, studioExportSchema } from './export';
import { productionStartedSchema, startProduction, studioProduceSchema } from './produce';
import { callingAgent, studioSend, studioSendSchema, studioSentSchema } from './sessions';
import { productionWaitedSchema, studioWaitSchema, waitForProduction } from './wait';

/**
 * The Studio (docs/STUDIO.md): send a brief, produce a deliverable from it (a workflow), wait for
 * it, export it as team media and an artifact. MCP only; an agent's own principal reaches only its
 * own sessions (`callingAgent`).
 */
export const studio: Feature = {
  name: 'studio',
  operations: [
    defineOperation({
      name: 'studio.send',
      access: { level: 'write', app: 'core' },
      input: studioSendSchema,
      output: studioSentSchema,
      handler: (ctx, caller, input) =>
        studioSend(
          ctx.db,
          caller.team.id,
          connectedAgent(caller),
          caller.principal.userId,
          input,
          caller.idempotencyKey,
          callingAgent(caller.principal),
        ),
      mcp: {
        name: 'studio_send',
        title: 'Studio: send a brief',
        description:
          'Adds a message to a Studio session, where the agent turns a brief into a deliverable (a proposal, a ' +
          'concept, an update, copy). Without sessionId it opens a new session for this agent. Say what to make, for ' +
          'whom, the facts, the tone. Answers the session (its id, messages, productions). Then call studio_produce.',
      },
    }),
    defineOperation({
      name: 'studio.produce',
      // It starts the workflow studio-produce-<sessionId>:<n>, which reads the production row.
      access: { level: 'write', app: 'core', inTurns: 'startsWork' },
      input: studioProduceSchema,
      output: productionStartedSchema,
      handler: (ctx, { team, principal }, input) => startProduction(ctx, team, input, callingAgent(principal)),
      mcp: {
        name: 'studio_produce',
        title: 'Studio: produce the deliverable',
        description:
          "Starts a production: the session's agent writes the deliverable from the whole brief (and improves its " +
          'earlier draft when the brief grew). Runs in the background; answers the production (n, status queued). ' +
          'Then call studio_wait. Asking again with nothing new answers the same production.',
      },
    }),
    defineOperation({
      name: 'studio.wait',
      access: { level: 'read', app: 'core' },
      input: studioWaitSchema,
      output: productionWaitedSchema,
      handler: (ctx, { team, principal }, input) => waitForProduction(ctx.db, team.id, input, callingAgent(principal)),
      mcp: {
        name: 'studio_wait',
        title: 'Studio: wait for a production',
        description:
          'Waits up to timeoutSeconds (default 20) for a production (default: the latest) to finish; answers ' +
          '{ done, production } with its status and, once succeeded, the result (Markdown). generated false means ' +
          'no model is configured and the result is a placeholder saying so. Not done yet: call it again.',
      },
    }),
    defineOperation({
      name: 'studio.export',
      access: { level: 'write', app: 'core' },
      input: studioExportSchema,
      output: productionExportedSchema,
      handler: (ctx, { team, principal }, input) => exportProduction(ctx, team.id, input, callingAgent(principal)),
      mcp: {
        name: 'studio_export',
        title: 'Studio: export as an artifact',
        description:
          "Stores a succeeded production as a Markdown file in the team's media and creates an artifact with it " +
          '(type and status from the arguments, else the team settings, else other/draft; optional contactId). ' +
          'Exporting again answers the same artifact. Deliver it with deliver_artifacts.',
      },
    }),
  ],
};
