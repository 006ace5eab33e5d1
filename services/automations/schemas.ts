import { z } from 'zod';
import { HTML_BODY_LIMIT, PLAIN_BODY_LIMIT } from '../campaigns/content';
import { campaignFields } from '../campaigns/schemas';
import { conditionSchema } from '../contacts/segments';
import { mappingSchema } from '../hooks/mapping';
import { pageQuerySchema } from '../platform/pagination';
import { durationSchema } from '../warps/duration';

/** An automation: its trigger, its versioned steps, and the JSON its enrollments are shown as (docs/AUTOMATIONS.md). */

/** The platform events that name a contact (docs/EVENTS.md): what an event trigger or a waitForEvent listens to. */
export const CONTACT_EVENTS = ['contact.created', 'contact.updated', 'artifact.sent', 'email.received'] as const;
export const contactEventSchema = z.enum(CONTACT_EVENTS);

/** The fields an inbound payload may be mapped to: the contact to find or create (svc-automation-enroll's inputs). */
export const ENROLL_FIELDS = [
  'contactId',
  'email',
  'phone',
  'name',
  'company',
  'title',
  'location',
  'tags',
  'properties',
  'marketingConsent',
  'consentSource',
] as const;

/** An inbound trigger with no mapping reads the payload's own fields of the same names. */
export const DEFAULT_INBOUND_MAPPING = { contactId: '$.contactId', email: '$.email', phone: '$.phone', name: '$.name' };

export const triggerSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('inbound'),
    source: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a source name: lowercase letters, digits, . _ - (at most 64)')
      .describe('POST /v1/agents/{agentUuid}/hooks?source=<source> enrolls the contact the payload names'),
    mapping: mappingSchema
      .optional()
      .describe(
        `Contact field → payload path, fields among ${ENROLL_FIELDS.join(', ')}; default ` +
          JSON.stringify(DEFAULT_INBOUND_MAPPING),
      ),
  }),
  z.strictObject({
    kind: z.literal('event'),
    event: contactEventSchema.describe('Every contact this platform event names is enrolled'),
  }),
  z.strictObject({
    kind: z.literal('segment'),
    segmentId: z.string().min(1).max(100).describe('A contact entering this saved segment is enrolled'),
  }),
]);
export type Trigger = z.infer<typeof triggerSchema>;

const label = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'a label: a lowercase letter, then letters, digits, _ or - (at most 40)');
/** A later step, by index (0-based) or by label. */
const target = z.union([z.number().int().min(0).max(49), label]);
const common = { label: label.optional().describe('A name other steps can jump to') };

export const stepSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('wait'), duration: durationSchema, ...common }),
  z.strictObject({
    type: z.literal('waitForEvent'),
    event: contactEventSchema.describe('A platform event about the enrolled contact'),
    timeout: durationSchema,
    onTimeout: target.optional().describe('Where to go when the timeout passes first (default: the next step)'),
    ...common,
  }),
  z.strictObject({
    type: z.literal('send'),
    channel: z
      .enum(['email', 'sms', 'push'])
      .describe(
        "Sent through the automation agent's integration for the channel (WhatsApp needs an approved template: not here)",
      ),
    subject: campaignFields.subject.optional(),
    content: z.string().max(PLAIN_BODY_LIMIT).default(''),
    contentHtml: z.string().max(HTML_BODY_LIMIT).optional(),
    templateParams: campaignFields.templateParams
      .default({})
      .describe('Placeholder → contact path (contact.firstName, …) or literal, as in campaigns'),
    aiParams: campaignFields.aiParams.default({}).describe('Placeholder → a short prompt, as in campaigns'),
    ...common,
  }),
  z.strictObject({
    type: z.literal('runWarp'),
    warp: z.string().min(1).max(100).describe('A built-in or private warp, run as the automation agent'),
    inputs: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('The warp inputs; a string "$.contact.<field>" or "$.enrollment.id" is replaced by that value'),
    ...common,
  }),
  z.strictObject({
    type: z.literal('branch'),
    if: z
      .strictObject({
        match: z.enum(['all', 'any']).default('all'),
        conditions: z.array(conditionSchema).min(1).max(20),
      })
      .describe('Conditions on the contact, as in segments (tag, has_email, prop key:value, …)'),
    then: target.describe('Where to go when the contact matches'),
    else: target.optional().describe('Where to go otherwise (default: the next step)'),
    ...common,
  }),
  z.strictObject({ type: z.literal('exit'), ...common }),
]);
export type Step = z.infer<typeof stepSchema>;

export const stepsSchema = z.array(stepSchema).min(1).max(50);

export const automationCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  trigger: triggerSchema,
  steps: stepsSchema,
  enabled: z.boolean().default(true),
  agentId: z.string().max(100).optional().describe('The agent that sends and runs warps (default: the connected one)'),
});
export type AutomationCreate = z.infer<typeof automationCreateSchema>;

export const stepsUpdateSchema = z.strictObject({ steps: stepsSchema });
export const enabledSchema = z.strictObject({ enabled: z.boolean() });

export const automationListQuerySchema = pageQuerySchema.extend({
  enabled: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});

export const ENROLLMENT_STATUSES = ['active', 'completed', 'exited', 'failed'] as const;
export const enrollmentListQuerySchema = pageQuerySchema.extend({
  status: z.enum(ENROLLMENT_STATUSES).optional(),
  contactId: z.string().max(100).optional(),
});

export const automationSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  trigger: z.record(z.string(), z.unknown()),
  version: z.number().int(),
  steps: z.array(z.record(z.string(), z.unknown())),
  enabled: z.boolean(),
  /** inbound triggers: the system-owned hook that enrolls (list_hooks shows it). */
  hookId: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type AutomationJson = z.infer<typeof automationSchema>;

export const enrollmentSchema = z.object({
  id: z.string(),
  automationId: z.string(),
  version: z.number().int(),
  contactId: z.string(),
  status: z.enum(ENROLLMENT_STATUSES),
  step: z.number().int(),
  waitingFor: z.string().nullable(),
  exitReason: z.string().nullable(),
  error: z.unknown().nullable(),
  /** What each step that acts did: sent, skipped (and why), succeeded, failed. */
  steps: z.array(z.object({ step: z.number().int(), status: z.string(), detail: z.unknown().nullable() })).optional(),
  createdAt: z.iso.datetime(),
  endedAt: z.iso.datetime().nullable(),
});
export type EnrollmentJson = z.infer<typeof enrollmentSchema>;
