import { automationStepCounts, stepCountsSchema } from '../../services/automations/stepCounts';
import { z } from 'zod';
import {
  createAutomation,
  findAutomation,
  getAutomation,
  listAutomations,
  setAutomationEnabled,
  updateAutomationSteps,
  authorOf,
} from '../../services/automations/automations';
import { exitEnrollment, getEnrollment, listEnrollments } from '../../services/automations/enroll';
import { enrollFromFields, enrollInputSchema } from '../../services/automations/enrollFields';
import {
  automationCreateSchema,
  automationListQuerySchema,
  automationSchema,
  enabledSchema,
  enrollmentListQuerySchema,
  enrollmentSchema,
  stepsUpdateSchema,
} from '../../services/automations/schemas';
import type { AppContext } from '../../services/platform/context';
import { notFound } from '../../services/platform/errors';
import { pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

const TAG = 'Automations';
const automationParams = z.object({ automationId: z.string().min(1).max(100) });
const enrollmentParams = automationParams.extend({ enrollmentId: z.string().min(1).max(100) });
const enrollBodySchema = enrollInputSchema.omit({ automationId: true });

/** The team and the author of a write (an agent's credential writes only its own automations). */
function writer(req: Parameters<typeof authOf>[0]) {
  const { team, principal } = authOf(req);
  return { teamId: team.id, author: authorOf(principal) };
}

/** The Automations app over HTTP (docs/AUTOMATIONS.md): the same service functions as its MCP tools. */
export function automationsRoutes(ctx: AppContext): Route[] {
  /** An enrollment of this automation (another automation's id in the path is 404). */
  const enrollmentOf = async (teamId: string, automationId: string, enrollmentId: string) => {
    const enrollment = await getEnrollment(ctx.db, teamId, enrollmentId);
    if (enrollment.automationId !== automationId) throw notFound('Enrollment');
    return enrollment;
  };
  return [
    defineRoute({
      method: 'post',
      path: '/automations',
      tag: TAG,
      access: 'write',
      summary: 'Create an automation: a trigger (inbound source, platform event, segment entry) and a journey of steps',
      description:
        'Steps: wait, waitForEvent, send (email, sms, push; campaign placeholder rules), runWarp, branch, exit; ' +
        'checked now (422 invalid_automation with every issue). An inbound trigger creates the system-owned hook ' +
        'whose warp svc-automation-enroll enrolls the contact the payload names.',
      body: { kind: 'json', schema: automationCreateSchema },
      responses: { 201: json(automationSchema, 'The automation (version 1)', locationHeader) },
      errors: [404, 422],
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        const preferred = principal.kind === 'api_token' ? null : principal.agentId;
        const automation = await createAutomation(ctx.db, team.id, authorOf(principal), preferred, body);
        return {
          status: 201,
          body: automation,
          headers: { Location: `${ctx.config.baseUrl}/automations/${automation.id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/automations',
      tag: TAG,
      access: 'read',
      summary: "The team's automations, newest first, with their current steps",
      query: automationListQuerySchema,
      responses: { 200: json(pageSchema(automationSchema), 'A page of automations') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listAutomations(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/automations/{automationId}',
      tag: TAG,
      access: 'read',
      summary: 'One automation with its current version of the steps',
      params: automationParams,
      responses: { 200: json(automationSchema, 'The automation') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getAutomation(ctx.db, authOf(req).team.id, params.automationId),
      }),
    }),
    defineRoute({
      method: 'put',
      path: '/automations/{automationId}/steps',
      tag: TAG,
      access: 'write',
      summary: 'Replace the steps: a new version for new enrollments; running enrollments keep theirs',
      params: automationParams,
      body: { kind: 'json', schema: stepsUpdateSchema },
      responses: { 200: json(automationSchema, 'The automation at its new version') },
      errors: [422],
      handler: async ({ req, params, body }) => {
        const { teamId, author } = writer(req);
        return {
          status: 200,
          body: await updateAutomationSteps(ctx.db, teamId, params.automationId, body.steps, author),
        };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/automations/{automationId}',
      tag: TAG,
      access: 'write',
      summary: 'Enable or disable: a disabled automation enrolls nobody (its hook is off); running journeys finish',
      params: automationParams,
      body: { kind: 'json', schema: enabledSchema },
      responses: { 200: json(automationSchema, 'The automation') },
      handler: async ({ req, params, body }) => {
        const { teamId, author } = writer(req);
        return {
          status: 200,
          body: await setAutomationEnabled(ctx.db, teamId, params.automationId, body.enabled, author),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/automations/{automationId}/step-counts',
      tag: TAG,
      access: 'read',
      summary: 'How many enrollments are at each step, by version and status (active, completed, exited, failed)',
      params: automationParams,
      responses: { 200: json(stepCountsSchema, 'The counts') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await automationStepCounts(ctx.db, authOf(req).team.id, params.automationId),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/automations/{automationId}/enrollments',
      tag: TAG,
      access: 'read',
      summary: 'The enrollments of an automation, newest first; filter by status or contactId',
      params: automationParams,
      query: enrollmentListQuerySchema,
      responses: { 200: json(pageSchema(enrollmentSchema), 'A page of enrollments') },
      handler: async ({ req, params, query }) => {
        const teamId = authOf(req).team.id;
        await findAutomation(ctx.db, teamId, params.automationId);
        return { status: 200, body: await listEnrollments(ctx.db, teamId, params.automationId, query) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations/{automationId}/enrollments',
      tag: TAG,
      access: 'write',
      summary:
        'Enroll a contact by hand (by contactId, email or phone; created when none matches), or many by contactIds',
      description:
        'What the inbound trigger does for a POSTed payload. A contact already in the journey is not enrolled again: ' +
        'the answer names its running enrollment with enrolled: false. With contactIds (alone), the listed contacts ' +
        'enter together as one cohort; the answer counts them: enrolled, alreadyEnrolled, unknownContactIds.',
      params: automationParams,
      body: { kind: 'json', schema: enrollBodySchema },
      responses: {
        200: json(
          z.record(z.string(), z.unknown()),
          'enrollmentId, contactId, contactCreated, enrolled; with contactIds: enrolled, alreadyEnrolled, unknownContactIds',
        ),
      },
      errors: [422],
      handler: async ({ req, params, body }) => {
        const { team } = authOf(req);
        await findAutomation(ctx.db, team.id, params.automationId);
        return {
          status: 200,
          body: await enrollFromFields(ctx, team, { ...body, automationId: params.automationId }, 'api'),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/automations/{automationId}/enrollments/{enrollmentId}',
      tag: TAG,
      access: 'read',
      summary: 'One enrollment: its status, step, what it waits for, and what each acting step did',
      params: enrollmentParams,
      responses: { 200: json(enrollmentSchema, 'The enrollment') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await enrollmentOf(authOf(req).team.id, params.automationId, params.enrollmentId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/automations/{automationId}/enrollments/{enrollmentId}/exit',
      tag: TAG,
      access: 'write',
      summary: 'Take the contact out of the journey now (exited, exit_requested); again: the same answer',
      params: enrollmentParams,
      responses: { 200: json(enrollmentSchema, 'The exited enrollment') },
      errors: [409],
      handler: async ({ req, params }) => {
        const teamId = authOf(req).team.id;
        await enrollmentOf(teamId, params.automationId, params.enrollmentId);
        return { status: 200, body: await exitEnrollment(ctx.db, ctx.temporal, teamId, params.enrollmentId) };
      },
    }),
  ];
}
