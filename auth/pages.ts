import type { TeamAgents } from '../services/agents/agents';
import { html, Html } from '../services/platform/html';

/** The server-rendered pages of the authorization endpoint: login, consent, and errors. Plain HTML, no script. */

export const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#f5f5f7;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:3rem 1rem;padding:2rem;border-radius:12px;max-width:28rem;width:100%;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password],input[type=text],select{width:100%;padding:.5rem;box-sizing:border-box}
button{padding:.6rem 1.2rem;margin:1rem .5rem 0 0;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
.error{background:#fee2e2;color:#991b1b;padding:.6rem;border-radius:6px}.muted{color:#555;font-size:.9rem}fieldset{border:1px solid #ddd;border-radius:6px}`;

function layout(title: string, body: Html, extraStyle = ''): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${new Html(STYLE + extraStyle)}</style></head><body><main>${body}</main></body></html>`
    .text;
}

export interface ClientView {
  name: string;
  redirectHost: string;
}

const SCOPE_TEXT: Record<string, string> = {
  'mcp:read': "read your team's data (agents, contacts, jobs, artifacts, campaigns)",
  'mcp:write': "change your team's data and start work (create, update, send)",
  'mcp:use': "act as your agent: read and change your team's data",
};

export function loginPage(view: {
  requestId: string;
  csrfToken: string;
  client: ClientView;
  email?: string;
  error?: string;
}): string {
  return layout(
    'Sign in',
    html`<h1>Sign in to continue to ${view.client.name}</h1>
<p class="muted">${view.client.name} (${view.client.redirectHost}) asks to connect to your team.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="/oauth/authorize/login">
<input type="hidden" name="request_id" value="${view.requestId}"><input type="hidden" name="csrf_token" value="${view.csrfToken}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button></form>`,
  );
}

export function consentPage(view: {
  requestId: string;
  csrfToken: string;
  client: ClientView;
  scopes: string[];
  teams: TeamAgents[];
  preselectedAgent?: string;
  error?: string;
}): string {
  const agentOptions = view.teams.flatMap((team) => team.agents.map((agent) => ({ team, agent })));
  const firstChoice = agentOptions.find((o) => o.agent.id === view.preselectedAgent) ?? agentOptions[0];
  const teamsWithoutChoice = view.teams;
  return layout(
    'Allow access',
    html`<h1>Allow ${view.client.name} to connect?</h1>
<p class="muted">It will be sent back to ${view.client.redirectHost}.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<p>It will be able to:</p><ul>${view.scopes.map((s) => html`<li>${SCOPE_TEXT[s] ?? s}</li>`)}</ul>
<form method="post" action="/oauth/authorize/consent">
<input type="hidden" name="request_id" value="${view.requestId}"><input type="hidden" name="csrf_token" value="${view.csrfToken}">
${
  agentOptions.length > 0
    ? html`<fieldset><legend>Connect as</legend>${agentOptions.map((o) => html`<label><input type="radio" name="agent" value="${o.team.teamId}:${o.agent.id}"${o === firstChoice ? new Html(' checked') : ''}> ${o.agent.name} <span class="muted">(${o.team.teamName})</span></label>`)}
<label><input type="radio" name="agent" value="new"> a new agent (below)</label></fieldset>`
    : html`<input type="hidden" name="agent" value="new"><p>You have no agent yet. Name one to connect it.</p>`
}
<fieldset><legend>New agent</legend>
<label for="new_agent_team">Team</label><select id="new_agent_team" name="new_agent_team">${teamsWithoutChoice.map((t) => html`<option value="${t.teamId}">${t.teamName} (${t.teamSlug})</option>`)}</select>
<label for="new_agent_name">Name</label><input id="new_agent_name" name="new_agent_name" type="text" maxlength="100" placeholder="e.g. Sales assistant"></fieldset>
<button class="primary" type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(
    title,
    html`<h1>${title}</h1><p>${message}</p><p class="muted">Close this window and start again from the application.</p>`,
  );
}

/** A second submission (another click, the back button, a second tab) of a request already answered. */
export function alreadyAnsweredPage(client: ClientView): string {
  return layout(
    'Already answered',
    html`<h1>You already answered this request</h1>
<p>${client.name} asked to connect, and you allowed or denied it a moment ago. Your answer was sent to ${client.redirectHost}; nothing was sent again.</p>
<p>You can close this tab.</p>
<p class="muted">If ${client.name} did not connect, start again from ${client.name}.</p>`,
  );
}

/**
 * The pages a person reaches from a link in a message (approval, unsubscribe), often on a phone:
 * a signed link or a long word wraps instead of widening the card.
 */
const LINK_PAGE_STYLE = `main{overflow-wrap:anywhere;max-width:36rem}
@media (max-width:30rem){main{margin:1rem .5rem;padding:1.25rem}}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:1rem 0}dl.facts dt{color:#555}dl.facts dd{margin:0;min-width:0}
ul.recipients{margin:0;padding-left:1.1rem}.message{white-space:pre-wrap;background:#f8f8fa;border:1px solid #ddd;border-radius:6px;padding:.8rem;margin:.5rem 0 1rem}
h2{font-size:1rem;margin:1.2rem 0 .3rem}.lead{font-size:1.05rem}`;

/**
 * A page that tells a person what happened. `kind: 'done'` (approved, declined, unsubscribed,
 * already decided) ends with "you can close this tab"; only `kind: 'error'` sends them back to
 * whoever gave them the link.
 */
export function noticePage(view: {
  title: string;
  heading?: string;
  paragraphs: string[];
  kind: 'done' | 'error';
}): string {
  return layout(
    view.title,
    html`<h1>${view.heading ?? view.title}</h1>${view.paragraphs.map((p) => html`<p>${p}</p>`)}
${view.kind === 'done' ? html`<p class="muted">You can close this tab.</p>` : html`<p class="muted">Ask whoever sent you this link for a new one, or start again from the application.</p>`}`,
    LINK_PAGE_STYLE,
  );
}

/** A question with one form of buttons that posts back to the page's own URL (the signed link). */
export function confirmPage(view: {
  title: string;
  heading: string;
  paragraphs: string[];
  action: string;
  buttons: { name: string; value: string; label: string; primary?: boolean }[];
}): string {
  return layout(
    view.title,
    html`<h1>${view.heading}</h1>${view.paragraphs.map((p) => html`<p>${p}</p>`)}
<form method="post" action="${view.action}">${view.buttons.map((b) => html`<button${b.primary ? new Html(' class="primary"') : ''} type="submit" name="${b.name}" value="${b.value}">${b.label}</button>`)}</form>`,
    LINK_PAGE_STYLE,
  );
}

/** The signed approval link's page: who asks, to whom, on which channel, what exactly, until when; then Approve / Decline. */
export function approvalPage(view: {
  question: string;
  summary: string;
  facts: { label: string; value: string }[];
  recipients: { name: string | null; address: string }[];
  message: { subject: string | null; body: string } | null;
  approveLabel: string;
  action: string;
}): string {
  return layout(
    view.question,
    html`<h1>${view.question}</h1><p class="lead">${view.summary}</p>
<dl class="facts">${view.recipients.length ? html`<dt>To</dt><dd><ul class="recipients">${view.recipients.map((r) => html`<li>${r.name ? html`${r.name} — ` : ''}<span class="address">${r.address}</span></li>`)}</ul></dd>` : ''}${view.facts.map((f) => html`<dt>${f.label}</dt><dd>${f.value}</dd>`)}${view.message?.subject ? html`<dt>Subject</dt><dd>${view.message.subject}</dd>` : ''}</dl>
${view.message ? html`<h2>Message</h2><div class="message">${view.message.body}</div>` : ''}
<form method="post" action="${view.action}"><button class="primary" type="submit" name="decision" value="approve">${view.approveLabel}</button><button type="submit" name="decision" value="decline">Decline</button></form>
<p class="muted">Nothing happens until you choose. This link can be used once.</p>`,
    LINK_PAGE_STYLE,
  );
}
