import { z } from 'zod';
import {
  authorOf,
  createAutomation,
  findAutomation,
  getAutomation,
  listAutomations,
  setAutomationEnabled,
  updateAutomationSteps,
} from '../services/automations/automations';
import { exitEnrollment, getEnrollment, listEnrollments } from '../services/automations/enroll';
import {
  automationCreateSchema,
  automationListQuerySchema,
  enrollmentListQuerySchema,
  stepsSchema,
} from '../services/automations/schemas';
import { id, tool, Tool } from './toolKit';

const automationRef = z.strictObject({ automationId: id('automation') });

/** The Automations app (docs/AUTOMATIONS.md): journeys per contact, the same service functions as /v1/automations. */
export const automationTools: Tool[] = [
  tool({
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
    app: 'automations',
    access: 'write',
    input: automationCreateSchema,
    run: ({ ctx, team, principal, agentId }, input) =>
      createAutomation(ctx.db, team.id, authorOf(principal), agentId, input),
  }),
  tool({
    name: 'list_automations',
    title: 'List automations',
    description: "The team's automations, newest first: trigger, current version and steps, enabled.",
    app: 'automations',
    access: 'read',
    input: automationListQuerySchema,
    chargeInRead: true,
    run: ({ ctx, team, rider }, query) => listAutomations(ctx.db, team.id, query, rider),
  }),
  tool({
    name: 'get_automation',
    title: 'Get an automation',
    description: 'One automation: its trigger, its current version of the steps, enabled, and its inbound hook.',
    app: 'automations',
    access: 'read',
    input: automationRef,
    run: ({ ctx, team }, { automationId }) => getAutomation(ctx.db, team.id, automationId),
  }),
  tool({
    name: 'update_automation_steps',
    title: "Replace an automation's steps",
    description:
      'New steps (the same shapes as create_automation) become a new version that new enrollments start on; ' +
      'contacts already in the journey finish the version they started.',
    app: 'automations',
    access: 'write',
    input: automationRef.extend({ steps: stepsSchema }),
    run: ({ ctx, team, principal }, { automationId, steps }) =>
      updateAutomationSteps(ctx.db, team.id, automationId, steps, authorOf(principal)),
  }),
  tool({
    name: 'set_automation_enabled',
    title: 'Enable or disable an automation',
    description:
      'A disabled automation enrolls nobody (its inbound hook is off too); contacts already in the journey finish ' +
      'it. Use exit_enrollment to take one out.',
    app: 'automations',
    access: 'write',
    input: automationRef.extend({ enabled: z.boolean() }),
    run: ({ ctx, team, principal }, { automationId, enabled }) =>
      setAutomationEnabled(ctx.db, team.id, automationId, enabled, authorOf(principal)),
  }),
  tool({
    name: 'list_enrollments',
    title: "List an automation's enrollments",
    description:
      'Who is in the journey: each enrollment with its contact, version, status (active, completed, exited, failed), ' +
      'step and the event it waits for. Filter by status or contactId.',
    app: 'automations',
    access: 'read',
    input: enrollmentListQuerySchema.extend({ automationId: id('automation') }),
    run: async ({ ctx, team }, { automationId, ...query }) => {
      await findAutomation(ctx.db, team.id, automationId);
      return listEnrollments(ctx.db, team.id, automationId, query);
    },
  }),
  tool({
    name: 'exit_enrollment',
    title: 'Take a contact out of a journey',
    description:
      'Ends one enrollment now (status exited, exitReason exit_requested): nothing more is sent to the contact by ' +
      'this journey. Calling it again answers the same enrollment.',
    app: 'automations',
    access: 'write',
    input: z.strictObject({ enrollmentId: id('enrollment') }),
    // It tells the running workflow, which must not hear of it before the turn's writes commit.
    inTurns: 'startsWork',
    run: async ({ ctx, team }, { enrollmentId }) => {
      await getEnrollment(ctx.db, team.id, enrollmentId);
      return exitEnrollment(ctx.db, ctx.temporal, team.id, enrollmentId);
    },
  }),
];
