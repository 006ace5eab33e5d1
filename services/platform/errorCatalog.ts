/**
 * Every error code the API answers with, once: its HTTP status and what it means. docs/API.md's
 * error table is generated from this (`npm run docs:errors`), the OpenAPI document describes each
 * error status with the codes listed here, and a test fails when the source throws a code that is
 * missing here or the doc's table differs.
 */
export interface ErrorEntry {
  status: number;
  code: string;
  meaning: string;
}

export const errorCatalog = [
  {
    status: 400,
    code: 'validation_error',
    meaning:
      'body/query/header/path schema, malformed JSON, nesting deeper than 32, a NUL character, unknown job type ' +
      '(`details.knownTypes`), unknown plan (`details.knownPlans`), an API token without `X-Team-Slug` ' +
      "(`details.teams`: the user's teams); `details.issues` lists each problem",
  },
  {
    status: 400,
    code: 'bad_request',
    meaning: 'a request the body parser refused for another reason (for example an unsupported `Content-Encoding`)',
  },
  {
    status: 401,
    code: 'unauthorized',
    meaning:
      'no, unknown, revoked or expired token, or an OAuth token bound to another resource (`WWW-Authenticate: ' +
      'Bearer …, resource_metadata="…"`)',
  },
  {
    status: 401,
    code: 'invalid_signature',
    meaning:
      'a provider webhook whose signature (Svix, or WhatsApp `X-Hub-Signature-256`) is missing, wrong or outside ' +
      'the five-minute tolerance',
  },
  {
    status: 402,
    code: 'credits_exhausted',
    meaning: "MCP only: the team's credits for the billing cycle are used up ([`MCP.md`](MCP.md))",
  },
  {
    status: 402,
    code: 'payment_required',
    meaning:
      "MCP only: a public agent's payment gate wants a payment from a caller outside its team: HTTP 402 and a " +
      "JSON-RPC error (code 402) whose `data` is x402's PaymentRequired (`x402Version`, `accepts`, `error`) with " +
      '`reason`: `payment_missing`, `payment_malformed`, `payment_mismatch`, `payment_replayed`, `payment_invalid`, ' +
      '`payment_settlement_failed` (`phase`, `outcome: failed`, `paymentId`: nothing taken, credits refunded) ' +
      '([`AGENTS.md`](AGENTS.md#outside-callers-and-the-payment-gate))',
  },
  {
    status: 403,
    code: 'forbidden',
    meaning:
      '`X-Team-Slug` of a team the user is not in (or that does not exist), or, with an OAuth token, any team ' +
      "but the token's own; `/admin/*` without a platform operator's API token; an approval by an OAuth token " +
      '(people approve); a wrong or expired signed download link',
  },
  {
    status: 403,
    code: 'insufficient_scope',
    meaning: 'the token lacks the scope the operation needs (reads `mcp:read`, writes `mcp:write`; MCP: `mcp:use`)',
  },
  {
    status: 403,
    code: 'app_not_installed',
    meaning: 'MCP only: `/mcp/apps/{slug}` of an app the team has not installed',
  },
  {
    status: 404,
    code: 'not_found',
    meaning: 'unknown route or id, or an id of another team; an unconfigured webhook provider',
  },
  {
    status: 409,
    code: 'conflict',
    meaning: '`Idempotency-Key` reused with another body; a contact email that exists (`details.contactId`)',
  },
  {
    status: 409,
    code: 'invalid_state',
    meaning:
      'a move the state tables do not allow: an artifact move, delivering a draft, approving what is not ' +
      'pending, a campaign action in the wrong status, deleting a file or segment still in use',
  },
  {
    status: 413,
    code: 'payload_too_large',
    meaning: 'body over `BODY_LIMIT` (1 MB) or, on `/jobs`, `JOB_BODY_LIMIT` (64 MB); an upload over `MEDIA_MAX_BYTES`',
  },
  {
    status: 415,
    code: 'unsupported_media_type',
    meaning:
      'a body that is not `application/json` (or, on `POST /media`, not `multipart/form-data`; or a file type ' +
      'not accepted)',
  },
  {
    status: 422,
    code: 'webhook_url_refused',
    meaning:
      'a webhook endpoint URL that is not https, carries credentials, does not resolve, or resolves to a private or ' +
      'loopback address (allowed only with `WEBHOOK_ALLOW_PRIVATE_URLS`; [`EVENTS.md`](EVENTS.md))',
  },
  { status: 422, code: 'unknown_media', meaning: 'an artifact names a file the team does not have' },
  {
    status: 422,
    code: 'unknown_contact',
    meaning:
      'a contact id the team does not have (artifacts, deliveries, campaign test sends, enrollments, rows of an order import)',
  },
  { status: 422, code: 'no_recipient', meaning: 'a delivery without `contactIds` of an artifact without a contact' },
  { status: 422, code: 'recipient_unreachable', meaning: 'a recipient without an email or phone for the channel' },
  { status: 422, code: 'unknown_agent', meaning: '`agentId` is not an agent of the team' },
  { status: 422, code: 'unknown_product', meaning: 'an order item names a product (id or sku) the team does not have' },
  { status: 422, code: 'product_inactive', meaning: 'an order item names an inactive product' },
  {
    status: 422,
    code: 'currency_mismatch',
    meaning: "an order's items are priced in another currency than the order's (or than each other)",
  },
  { status: 422, code: 'no_agent', meaning: 'the team has no agent to send with' },
  { status: 422, code: 'integration_inactive', meaning: 'the agent has no active integration for the channel' },
  { status: 422, code: 'inbox_address_not_sender', meaning: "an integration's sender is the agent's inbound address" },
  {
    status: 422,
    code: 'provider_channel_mismatch',
    meaning: 'the provider does not serve that channel ([`CHANNELS.md`](CHANNELS.md))',
  },
  { status: 422, code: 'sender_required', meaning: 'the provider needs a sender (`from`)' },
  {
    status: 422,
    code: 'edits_not_accepted',
    meaning: 'approval edits (`message`, `subject`) for a warp other than a delivery',
  },
  {
    status: 422,
    code: 'empty_audience',
    meaning:
      'a campaign without an audience (`segmentId`, `tags`, `contactIds`), or whose audience has no contacts ' +
      '([`CAMPAIGNS.md`](CAMPAIGNS.md))',
  },
  { status: 422, code: 'unknown_segment', meaning: '`segmentId` is not a segment of the team' },
  {
    status: 404,
    code: 'unknown_warp',
    meaning:
      '`execute`, a `warp.run` job or a hook of a name that is neither a built-in warp nor a private warp of the team ' +
      '(`details.builtIn`, `details.private`; [`WARPS.md`](WARPS.md))',
  },
  {
    status: 422,
    code: 'unknown_warp_input',
    meaning:
      "a hook's fixed inputs or mapping name an input its warp does not declare (`details.unknown`, `details.inputs`; " +
      '[`HOOKS.md`](HOOKS.md))',
  },
  {
    status: 422,
    code: 'system_owned_hook',
    meaning: "toggling or deleting an automation's own hook: it follows its automation (`details.automationId`)",
  },
  {
    status: 422,
    code: 'invalid_private_warp',
    meaning:
      'a private warp step names an unknown tool or a reference to an undeclared input or no earlier step (`details.issues`)',
  },
  {
    status: 422,
    code: 'unknown_private_warp',
    meaning: '`create_private_app` naming warps that are not private warps of the team (`details.warps`)',
  },
  {
    status: 422,
    code: 'not_available',
    meaning: 'a warp that is registered but not runnable yet',
  },
  {
    status: 422,
    code: 'invalid_automation',
    meaning:
      "an automation's steps break a rule: a target that names no later step, a label used twice, a send without " +
      'content or with a placeholder in both maps, an unknown warp, a reference that is not `$.contact.…` (`details.issues`)',
  },
  {
    status: 422,
    code: 'unknown_enroll_field',
    meaning: 'an inbound trigger maps the payload to a field the enrollment does not take (`details.fields`)',
  },
  {
    status: 422,
    code: 'agent_not_self',
    meaning: 'An agent naming another agent of the team as the one an automation runs as (it may only name itself)',
  },
  {
    status: 422,
    code: 'unknown_automation',
    meaning: "`svc-automation-enroll` naming an automation that is not the team's",
  },
  {
    status: 422,
    code: 'automation_disabled',
    meaning: 'enrolling a contact in a disabled automation',
  },
  {
    status: 422,
    code: 'contact_ids_alone',
    meaning: 'a bulk enrollment (`contactIds`) that also names a single contact or contact fields',
  },
  {
    status: 422,
    code: 'contact_required',
    meaning: '`svc-automation-enroll` without a contactId, email or phone to find or create the contact by',
  },
  {
    status: 422,
    code: 'contact_not_sendable',
    meaning: '`svc-campaign-send-contact` to a contact that opted out, has no consent or no email (`details.reason`)',
  },
  {
    status: 422,
    code: 'send_contact_requires_email',
    meaning: '`svc-campaign-send-contact` of a campaign that is not email',
  },
  {
    status: 422,
    code: 'unknown_property',
    meaning: 'a segment condition names a property no contact has yet (set it on a contact first)',
  },
  { status: 422, code: 'body_too_long', meaning: "a campaign's plain or HTML body over its limit" },
  { status: 422, code: 'html_email_only', meaning: '`contentHtml` on a campaign that is not email' },
  {
    status: 422,
    code: 'subject_not_for_channel',
    meaning: 'a `subject` on a campaign that is not email (a push campaign takes `title`)',
  },
  { status: 422, code: 'title_push_only', meaning: 'a `title` on a campaign that is not push' },
  { status: 422, code: 'language_whatsapp_only', meaning: '`language` on a campaign that is not WhatsApp' },
  { status: 422, code: 'category_whatsapp_only', meaning: '`category` on a campaign that is not WhatsApp' },
  { status: 422, code: 'content_required', meaning: 'a campaign without content' },
  { status: 422, code: 'placeholder_in_both_maps', meaning: 'a placeholder in both `templateParams` and `aiParams`' },
  {
    status: 422,
    code: 'unmapped_placeholder',
    meaning: 'a WhatsApp template placeholder not mapped in `templateParams`',
  },
  { status: 422, code: 'ai_params_need_agent', meaning: '`aiParams` without an agent to write them' },
  { status: 422, code: 'whatsapp_ai_params', meaning: 'a WhatsApp template with `aiParams`' },
  {
    status: 422,
    code: 'whatsapp_name_not_slug',
    meaning: 'a WhatsApp template name that is not lowercase with underscores',
  },
  { status: 422, code: 'whatsapp_language_required', meaning: 'a WhatsApp campaign without `language`' },
  { status: 422, code: 'whatsapp_category_required', meaning: 'a WhatsApp campaign without `category`' },
  { status: 422, code: 'whatsapp_not_approved', meaning: 'sending a WhatsApp campaign whose template is not approved' },
  { status: 422, code: 'not_whatsapp', meaning: 'a WhatsApp template action on a campaign of another channel' },
  {
    status: 422,
    code: 'test_send_requires_email',
    meaning: 'a test send of a campaign that is not email, or to a contact without an email',
  },
  {
    status: 429,
    code: 'rate_limited',
    meaning: "the team's plan quota is used up (`Retry-After`, `RateLimit-Limit`, `RateLimit-Remaining`)",
  },
  { status: 500, code: 'internal_error', meaning: 'our bug, logged; the request can be retried' },
  {
    status: 502,
    code: 'provider_failed',
    meaning: 'the email provider refused a campaign test send (`details.retryable`)',
  },
  {
    status: 502,
    code: 'payment_facilitator_unavailable',
    meaning:
      'MCP only, a tool error: the x402 facilitator did not answer (`details.phase`): `verify`, the payment was ' +
      'not used and may be presented again; `settle` (`details.outcome: unknown`, `details.paymentId`), whether ' +
      'money moved is unknown and the same caller presenting the same payment again settles it again',
  },
  {
    status: 503,
    code: 'temporal_unavailable',
    meaning:
      'Temporal is down, frozen or slower than `TEMPORAL_REQUEST_TIMEOUT_MS` (5 s): answered within that ' +
      'deadline, with `Retry-After: 5`. Nothing is stranded: a job stays `queued` until a read settles it ' +
      '(`details.jobId`); a campaign send, retry or WhatsApp submit puts the campaign back where it was, so the ' +
      'same request works once Temporal is back',
  },
  {
    status: 503,
    code: 'database_unavailable',
    meaning:
      'Postgres is down, refusing connections, frozen or slower than `DATABASE_REQUEST_TIMEOUT_MS` (4 s): answered ' +
      'within that deadline, with `Retry-After: 5`, on the HTTP API, on MCP (an HTTP 503, or a tool error once ' +
      'the call is authenticated) and on the OAuth endpoints (as `{ error, error_description }`). A write is ' +
      'all or nothing; retry it with the same `Idempotency-Key`',
  },
] as const satisfies readonly ErrorEntry[];

/** A code the catalog lists: the only codes an AppError can be raised with. */
export type ErrorCode = (typeof errorCatalog)[number]['code'];

const STATUS_OF: ReadonlyMap<string, number> = new Map(errorCatalog.map((e) => [e.code, e.status]));

/** The HTTP status the catalog gives `code`. */
export function statusOf(code: ErrorCode): number {
  const status = STATUS_OF.get(code);
  if (status === undefined) throw new Error(`error code ${code} is not in the catalog`);
  return status;
}

export const codesWithStatus = (status: number): ErrorCode[] =>
  errorCatalog.filter((e) => e.status === status).map((e) => e.code);

export const ERRORS_START = '<!-- errors:start -->';
export const ERRORS_END = '<!-- errors:end -->';

/** The Markdown table of the catalog, as docs/API.md carries it between the markers. */
export function errorTableMarkdown(): string {
  const rows = [...errorCatalog]
    .sort((a, b) => a.status - b.status)
    .map((e) => `| ${e.status} | \`${e.code}\` | ${e.meaning.replace(/\|/g, '\\|')} |`);
  return ['| status | code | when |', '|---|---|---|', ...rows].join('\n');
}

/** `markdown` with the text between the markers replaced by the table; throws if a marker is missing. */
export function withErrorTable(markdown: string): string {
  const start = markdown.indexOf(ERRORS_START);
  const end = markdown.indexOf(ERRORS_END);
  if (start < 0 || end < start) throw new Error(`docs/API.md needs the markers ${ERRORS_START} and ${ERRORS_END}`);
  return `${markdown.slice(0, start + ERRORS_START.length)}\n${errorTableMarkdown()}\n${markdown.slice(end)}`;
}
