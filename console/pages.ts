import { z } from 'zod';
import { html, Html } from '../services/platform/html';
import type { TeamAgents } from '../services/agents/agents';
import { CONTACT_EVENTS, ENROLL_FIELDS, stepSchema } from '../services/automations/schemas';
import { conditionSchema } from '../services/contacts/segments';
import { artifactTypeSchema } from '../services/deliveries/artifacts';
import { outboundSourceKindSchema } from '../services/deliveries/outboundMessages';
import { EVENT_TYPES } from '../services/events/outbox';
import { FORM_FIELD_NAMES } from '../services/forms/forms';
import { ALLOWED_MEDIA_TYPES } from '../services/media/media';
import { HOOK_SOURCES } from '../services/hooks/hookRows';
import { WEB_HOOK_EVENTS } from '../services/hooks/hooks';
import { roomEventTypes } from '../services/rooms/roomEvents';

/** What a form field for a segment condition's value takes: none, a number, yes/no, or text (dates too). */
function valueKind(schema: z.ZodType | undefined): 'none' | 'number' | 'boolean' | 'text' {
  if (!schema) return 'none';
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return valueKind(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodNumber) return 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  return 'text';
}

/**
 * The names the console's modules offer in their forms and listens for, taken from the services that define
 * them (a new room event, event type or step type reaches the console without a second list).
 * Rendered into every page as JSON in a <meta> (not a script: the CSP runs no inline script).
 */
export const CONSOLE_VOCABULARY = {
  roomEvents: roomEventTypes,
  webhookEventTypes: EVENT_TYPES,
  contactEvents: CONTACT_EVENTS,
  enrollFields: ENROLL_FIELDS,
  stepTypes: stepSchema.options.map((o) => o.shape.type.value),
  conditionTypes: conditionSchema.options.map((o) => ({
    type: o.shape.type.value,
    value: valueKind((o.shape as Record<string, z.ZodType>).value),
  })),
  hookSources: HOOK_SOURCES,
  webHookEvents: WEB_HOOK_EVENTS,
  messageSources: outboundSourceKindSchema.options,
  formFields: FORM_FIELD_NAMES,
  /** The types a media upload may have (services/media/media.ts); its size limit is the config's, per page. */
  mediaTypes: ALLOWED_MEDIA_TYPES,
  artifactTypes: artifactTypeSchema.options,
};

/**
 * The console's pages, the one list of them: the routes (console/router.ts), the navigation (in
 * this order; a page without `nav` lights up its `section`) and the module that draws each page in
 * the browser, `console/assets/pages/<name>.js` (console/assets/main.js loads it by the name the
 * frame carries). The server renders the frame (navigation, team, CSRF token); the module fills it from /app/api.
 */
export const CONSOLE_PAGES: readonly ConsolePage[] = [
  { name: 'approvals', path: '/app/approvals', title: 'Approvals', nav: 'Approvals' },
  { name: 'rooms', path: '/app/rooms', title: 'Rooms', nav: 'Rooms' },
  { name: 'room', path: '/app/rooms/:id', title: 'Room', section: 'rooms' },
  { name: 'campaigns', path: '/app/campaigns', title: 'Campaigns', nav: 'Campaigns' },
  { name: 'campaign', path: '/app/campaigns/:id', title: 'Campaign', section: 'campaigns' },
  { name: 'jobs', path: '/app/jobs', title: 'Jobs', nav: 'Jobs' },
  { name: 'automations', path: '/app/automations', title: 'Automations', nav: 'Automations' },
  { name: 'automation', path: '/app/automations/:id', title: 'Automation', section: 'automations' },
  { name: 'webhooks', path: '/app/webhooks', title: 'Webhooks', nav: 'Webhooks' },
  { name: 'hooks', path: '/app/hooks', title: 'Hooks and keys', nav: 'Hooks' },
  { name: 'messages', path: '/app/messages', title: 'Messages', nav: 'Messages' },
  { name: 'artifacts', path: '/app/artifacts', title: 'Artifacts', nav: 'Artifacts' },
  { name: 'artifact', path: '/app/artifacts/:id', title: 'Artifact', section: 'artifacts' },
  { name: 'media', path: '/app/media', title: 'Media', nav: 'Media' },
  { name: 'contacts', path: '/app/contacts', title: 'Contacts', nav: 'Contacts' },
  { name: 'contact', path: '/app/contacts/:id', title: 'Contact', section: 'contacts' },
  { name: 'segments', path: '/app/segments', title: 'Segments', nav: 'Segments' },
  { name: 'forms', path: '/app/forms', title: 'Forms', nav: 'Forms' },
  { name: 'form', path: '/app/forms/:id', title: 'Form', section: 'forms' },
  { name: 'shop', path: '/app/shop', title: 'Shop', nav: 'Shop' },
  { name: 'agents', path: '/app/agents', title: 'Agents', nav: 'Agents' },
  { name: 'agent', path: '/app/agents/:id', title: 'Agent', section: 'agents' },
  { name: 'tokens', path: '/app/tokens', title: 'API tokens', nav: 'API tokens' },
  { name: 'team', path: '/app/team', title: 'Team', nav: 'Team' },
];

interface ConsolePage {
  /** Lower-case letters: also the name of its module, console/assets/pages/<name>.js. */
  name: string;
  path: string;
  title: string;
  /** Its label in the navigation; a page without one is part of the section of `section`. */
  nav?: string;
  section?: string;
}

function frame(title: string, body: Html, head: Html = html``): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,"><title>${title} · Team console</title><link rel="stylesheet" href="/app/assets/console.css">${head}</head>
<body>${body}</body></html>`.text;
}

export function consoleLoginPage(view: { csrfToken: string; next: string; email?: string; error?: string }): string {
  return frame(
    'Sign in',
    html`<main class="login"><h1>Sign in to the team console</h1>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="/app/login">
<input type="hidden" name="csrf_token" value="${view.csrfToken}"><input type="hidden" name="next" value="${view.next}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button></form>
<p class="muted">The same account you sign in with when you connect an MCP client or app.</p></main>`,
  );
}

export function consolePage(view: {
  page: string;
  title: string;
  id?: string;
  csrfToken: string;
  email: string;
  team: TeamAgents;
  teams: TeamAgents[];
  path: string;
  /** `{base_url}`: where the API is reached from outside (the inbound hook URL a page shows). */
  apiBaseUrl: string;
  /** The largest media upload, bytes (MEDIA_MAX_BYTES), shown with the allowed types. */
  mediaMaxBytes: number;
}): string {
  const section = CONSOLE_PAGES.find((p) => p.name === view.page)?.section ?? view.page;
  const nav = CONSOLE_PAGES.filter((p) => p.nav).map(
    (item) =>
      html`<li><a href="${item.path}"${item.name === section ? new Html(' aria-current="page"') : ''}>${item.nav}</a></li>`,
  );
  const teamSwitch =
    view.teams.length > 1
      ? html`<form method="post" action="/app/team" class="team-switch"><input type="hidden" name="csrf_token" value="${view.csrfToken}"><input type="hidden" name="next" value="${view.path}">
<label for="team-select">Team</label><select id="team-select" name="team">${view.teams.map((t) => html`<option value="${t.teamSlug}"${t.teamSlug === view.team.teamSlug ? new Html(' selected') : ''}>${t.teamName}</option>`)}</select><button type="submit">Switch</button></form>`
      : html`<span class="team-name">${view.team.teamName}</span>`;
  return frame(
    view.title,
    html`<header class="top"><a class="brand" href="/app/approvals">Team console</a>${teamSwitch}
<form method="post" action="/app/logout" class="signout"><input type="hidden" name="csrf_token" value="${view.csrfToken}"><span class="muted who">${view.email}</span><button type="submit">Sign out</button></form></header>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
<main id="main" data-page="${view.page}" data-id="${view.id ?? ''}" data-team="${view.team.teamSlug}"><h1>${view.title}</h1><p class="muted" id="status" role="status" aria-live="polite">Loading…</p><div id="content"></div></main>`,
    html`<meta name="csrf-token" content="${view.csrfToken}"><meta name="console-vocabulary" content="${JSON.stringify({ ...CONSOLE_VOCABULARY, apiBaseUrl: view.apiBaseUrl, mediaMaxBytes: view.mediaMaxBytes })}"><link rel="stylesheet" href="/app/assets/uplot.css"><script src="/app/assets/uplot.js" defer></script><script type="module" src="/app/assets/main.js"></script><link rel="modulepreload" href="/app/assets/pages/${view.page}.js">`,
  );
}

/** What a person sees when a console page or form fails (the API under /app/api answers JSON, as /v1 does). */
export function consoleErrorPage(view: { title: string; message: string }): string {
  return frame(
    view.title,
    html`<main class="login"><h1>${view.title}</h1><p class="error" role="alert">${view.message}</p>
<p><a href="/app/approvals">Back to the console</a></p></main>`,
  );
}
