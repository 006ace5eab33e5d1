import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { defineOperation, Feature, id } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import {
  authorOf,
  createAutomation,
  findAutomation,
  getAutomation,
  listAutomations,
  setAutomationEnabled,
  updateAutomationSteps,
} from './automations';
import { exitEnrollment, getEnrollment, listEnrollments } from './enroll';
import { enrolledSchema, enrollFromFields, enrollInputSchema } from './enrollFields';
import {
  automationCreateSchema,
  automationListQuerySchema,
  automationSchema,
  enabledSchema,
  enrollmentListQuerySchema,
  enrollmentSchema,
  stepsSchema,
  stepsUpdateSchema,
} from './schemas';
import { automationStepCounts, stepCountsSchema } from './stepCounts';

const tag = 'Automations';
const access = { level: 'read', app: 'automations' } as const;
const writes = { level: 'write', app: 'automations' } as const;
const automationParams = z.object({ automationId: z.string().min(1).max(100) });
const enrollmentParams = automationParams.extend({ enrollmentId: z.string().min(1).max(100) });
const enrollBodySchema = enrollInputSchema.omit({ automationId: true });
const automationRef = z.strictObject({ automationId: id('automation') });

/** An enrollment of the team; of this automation when one is named (another automation's id is 404). */
async function enrollmentOf(db: Db, teamId: string, enrollmentId: string, automationId?: string) {
  const enrollment = await getEnrollment(db, teamId, enrollmentId);
  if (automationId !== undefined && enrollment.automationId !== automationId) throw notFound('Enrollment');
  return enrollment;
}

/** The Automations app (docs/AUTOMATIONS.md): journeys per contact, their enrollments and step counts. */
export const automations: Feature = {
  name: 'automations',
  operations: [
    defineOperation({
      name: 'automations.create',
      access: writes,
      input: automationCreateSchema,
      output: automationSchema,
      // The sending agent, unless the input names one: the connected agent (MCP), an OAuth token's agent (HTTP).
      handler: (ctx, { team, principal, agentId }, input) =>
        createAutomation(
          ctx.db,
          team.id,
          authorOf(principal),
          agentId ?? (principal.kind === 'api_token' ? null : principal.agentId),
          input,
        ),
      http: {
        method: 'post',
        path: '/automations',
        tag,
        summary:
          'Create an automation: a trigger (inbound source, platform event, segment entry) and a journey of steps',
        description:
          'Steps: wait, waitForEvent, send (email, sms, push; campaign placeholder rules), runWarp, branch, exit; ' +
          'checked now (422 invalid_automation with every issue). An inbound trigger creates the system-owned hook ' +
          'whose warp svc-automation-enroll enrolls the contact the payload names.',
        status: 201,
        answer: 'The automation (version 1)',
        body: { schema: automationCreateSchema },
        location: (created, ctx) => `${ctx.config.baseUrl}/automations/${created.id}`,
        errors: [404, 422],
      },
      mcp: {
        name: 'create_automation',
        title: 'Create an automation',
        description:
          'A journey each contact goes through once enrolled. trigger: { kind: "inbound", source, mapping? } (a POST to ' +
          '/v1/agents/{agentUuid}/hooks?source=<source> enrolls the contact its payload names, by contactId, email or ' +
          'phone, created if new), { kind: "event", event: "contact.created" | "contact.updated" | "artifact.sent" | "email.received" }, or ' +
          '{ kind: "segment", segmentId } (a contact entering the segment). steps, in order: { type: "wait", duration: ' +
          '"2h" }, { type: "waitForEvent", event, timeout, onTimeout? }, { type: "send", channel: email|sms|push, subject?, ' +
          'content, templateParams?, aiParams? } (campaign placeholders, e.g. {{first}} with templateParams { first: ' +
          '"contact.firstName" }), { type: "runWarp", warp, inputs } ("$.contact.email" style references), { type: ' +
          '"branch", if: { conditions: [segment conditions] }, then, else? } (a later step index or label), { type: ' +
          '"exit" }. The connected agent sends. Then list_enrollments to follow contacts.',
      },
    }),
    defineOperation({
      name: 'automations.list',
      access,
      input: automationListQuerySchema,
      output: pageSchema(automationSchema),
      handler: (ctx, { team }, query) => listAutomations(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/automations',
        tag,
        summary: "The team's automations, newest first, with their current steps",
        status: 200,
        answer: 'A page of automations',
        query: automationListQuerySchema,
      },
      mcp: {
        name: 'list_automations',
        title: 'List automations',
        description: "The team's automations, newest first: trigger, current version and steps, enabled.",
      },
    }),
    defineOperation({
      name: 'automations.get',
      access,
      output: automationSchema,
      handler: (ctx, { team }, { automationId }) => getAutomation(ctx.db, team.id, automationId),
      http: {
        method: 'get',
        path: '/automations/{automationId}',
        tag,
        summary: 'One automation with its current version of the steps',
        status: 200,
        answer: 'The automation',
        params: automationParams,
      },
      mcp: {
        name: 'get_automation',
        title: 'Get an automation',
        description: 'One automation: its trigger, its current version of the steps, enabled, and its inbound hook.',
        input: automationRef,
      },
    }),
    defineOperation({
      name: 'automations.updateSteps',
      access: writes,
      output: automationSchema,
      handler: (ctx, { team, principal }, { automationId, steps }) =>
        updateAutomationSteps(ctx.db, team.id, automationId, steps, authorOf(principal)),
      http: {
        method: 'put',
        path: '/automations/{automationId}/steps',
        tag,
        summary: 'Replace the steps: a new version for new enrollments; running enrollments keep theirs',
        status: 200,
        answer: 'The automation at its new version',
        params: automationParams,
        body: { schema: stepsUpdateSchema },
        errors: [422],
      },
      mcp: {
        name: 'update_automation_steps',
        title: "Replace an automation's steps",
        description:
          'New steps (the same shapes as create_automation) become a new version that new enrollments start on; ' +
          'contacts already in the journey finish the version they started.',
        input: automationRef.extend({ steps: stepsSchema }),
      },
    }),
    defineOperation({
      name: 'automations.setEnabled',
      access: writes,
      output: automationSchema,
      handler: (ctx, { team, principal }, { automationId, enabled }) =>
        setAutomationEnabled(ctx.db, team.id, automationId, enabled, authorOf(principal)),
      http: {
        method: 'patch',
        path: '/automations/{automationId}',
        tag,
        summary: 'Enable or disable: a disabled automation enrolls nobody (its hook is off); running journeys finish',
        status: 200,
        answer: 'The automation',
        params: automationParams,
        body: { schema: enabledSchema },
      },
      mcp: {
        name: 'set_automation_enabled',
        title: 'Enable or disable an automation',
        description:
          'A disabled automation enrolls nobody (its inbound hook is off too); contacts already in the journey finish ' +
          'it. Use exit_enrollment to take one out.',
        input: automationRef.extend({ enabled: z.boolean() }),
      },
    }),
    defineOperation({
      name: 'automations.stepCounts',
      access,
      output: stepCountsSchema,
      handler: (ctx, { team }, { automationId }) => automationStepCounts(ctx.db, team.id, automationId),
      http: {
        method: 'get',
        path: '/automations/{automationId}/step-counts',
        tag,
        summary: 'How many enrollments are at each step, by version and status (active, completed, exited, failed)',
        status: 200,
        answer: 'The counts',
        params: automationParams,
      },
    }),
    defineOperation({
      name: 'automations.enrollments',
      access,
      output: pageSchema(enrollmentSchema),
      handler: async (ctx, { team }, { automationId, ...query }) => {
        await findAutomation(ctx.db, team.id, automationId);
        return listEnrollments(ctx.db, team.id, automationId, query);
      },
      http: {
        method: 'get',
        path: '/automations/{automationId}/enrollments',
        tag,
        summary: 'The enrollments of an automation, newest first; filter by status or contactId',
        status: 200,
        answer: 'A page of enrollments',
        params: automationParams,
        query: enrollmentListQuerySchema,
      },
      mcp: {
        name: 'list_enrollments',
        title: "List an automation's enrollments",
        description:
          'Who is in the journey: each enrollment with its contact, version, status (active, completed, exited, failed), ' +
          'step and the event it waits for. Filter by status or contactId.',
        input: enrollmentListQuerySchema.extend({ automationId: id('automation') }),
      },
    }),
    defineOperation({
      name: 'automations.enroll',
      access: writes,
      output: enrolledSchema,
      handler: async (ctx, { team }, input) => {
        await findAutomation(ctx.db, team.id, input.automationId);
        return enrollFromFields(ctx, team, input, 'api');
      },
      http: {
        method: 'post',
        path: '/automations/{automationId}/enrollments',
        tag,
        summary:
          'Enroll a contact by hand (by contactId, email or phone; created when none matches), or many by contactIds',
        description:
          'What the inbound trigger does for a POSTed payload. A contact already in the journey is not enrolled again: ' +
          'the answer names its running enrollment with enrolled: false. With contactIds (alone), the listed contacts ' +
          'enter together as one cohort; the answer counts them: enrolled, alreadyEnrolled, unknownContactIds.',
        status: 200,
        answer:
          'enrollmentId, contactId, contactCreated, enrolled; with contactIds: enrolled, alreadyEnrolled, unknownContactIds',
        params: automationParams,
        body: { schema: enrollBodySchema },
        errors: [422],
      },
    }),
    defineOperation({
      name: 'automations.enrollment',
      access,
      output: enrollmentSchema,
      handler: (ctx, { team }, { automationId, enrollmentId }) =>
        enrollmentOf(ctx.db, team.id, enrollmentId, automationId),
      http: {
        method: 'get',
        path: '/automations/{automationId}/enrollments/{enrollmentId}',
        tag,
        summary: 'One enrollment: its status, step, what it waits for, and what each acting step did',
        status: 200,
        answer: 'The enrollment',
        params: enrollmentParams,
      },
    }),
    defineOperation({
      name: 'automations.exitEnrollment',
      // It tells the running workflow, which must not hear of it before the turn's writes commit.
      access: { ...writes, inTurns: 'startsWork' },
      // The tool names the enrollment alone; the HTTP path names its automation too.
      input: z.object({ automationId: z.string().optional(), enrollmentId: z.string() }),
      output: enrollmentSchema,
      handler: async (ctx, { team }, { automationId, enrollmentId }) => {
        await enrollmentOf(ctx.db, team.id, enrollmentId, automationId);
        return exitEnrollment(ctx.db, ctx.temporal, team.id, enrollmentId);
      },
      http: {
        method: 'post',
        path: '/automations/{automationId}/enrollments/{enrollmentId}/exit',
        tag,
        summary: 'Take the contact out of the journey now (exited, exit_requested); again: the same answer',
        status: 200,
        answer: 'The exited enrollment',
        params: enrollmentParams,
        errors: [409],
      },
      mcp: {
        name: 'exit_enrollment',
        title: 'Take a contact out of a journey',
        description:
          'Ends one enrollment now (status exited, exitReason exit_requested): nothing more is sent to the contact by ' +
          'this journey. Calling it again answers the same enrollment.',
        input: z.strictObject({ enrollmentId: id('enrollment') }),
      },
    }),
  ],
};
