import type { TeamAgents } from '../services/agents';

/** The server-rendered pages of the authorization endpoint: login, consent, and errors. Plain HTML, no script. */

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Tagged template that escapes every interpolated value unless it is already rendered `Html`. */
class Html {
  constructor(readonly text: string) {}
}
function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    const rendered = Array.isArray(value)
      ? value.map((v) => (v instanceof Html ? v.text : escapeHtml(String(v)))).join('')
      : value instanceof Html ? value.text : value === undefined || value === null || value === false ? '' : escapeHtml(String(value));
    out += rendered + strings[i + 1];
  });
  return new Html(out);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#f5f5f7;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:3rem 1rem;padding:2rem;border-radius:12px;max-width:28rem;width:100%;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password],input[type=text],select{width:100%;padding:.5rem;box-sizing:border-box}
button{padding:.6rem 1.2rem;margin:1rem .5rem 0 0;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
.error{background:#fee2e2;color:#991b1b;padding:.6rem;border-radius:6px}.muted{color:#555;font-size:.9rem}fieldset{border:1px solid #ddd;border-radius:6px}`;

function layout(title: string, body: Html): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${new Html(STYLE)}</style></head><body><main>${body}</main></body></html>`.text;
}

export interface ClientView {
  name: string;
  redirectHost: string;
}

const SCOPE_TEXT: Record<string, string> = {
  'mcp:read': 'read your team\'s data (agents, contacts, jobs, artifacts, campaigns)',
  'mcp:write': 'change your team\'s data and start work (create, update, send)',
  'mcp:use': 'act as your agent: read and change your team\'s data',
};

export function loginPage(view: { requestId: string; csrfToken: string; client: ClientView; email?: string; error?: string }): string {
  return layout('Sign in', html`<h1>Sign in to continue to ${view.client.name}</h1>
<p class="muted">${view.client.name} (${view.client.redirectHost}) asks to connect to your team.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="/oauth/authorize/login">
<input type="hidden" name="request_id" value="${view.requestId}"><input type="hidden" name="csrf_token" value="${view.csrfToken}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button></form>`);
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
  return layout('Allow access', html`<h1>Allow ${view.client.name} to connect?</h1>
<p class="muted">It will be sent back to ${view.client.redirectHost}.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<p>It will be able to:</p><ul>${view.scopes.map((s) => html`<li>${SCOPE_TEXT[s] ?? s}</li>`)}</ul>
<form method="post" action="/oauth/authorize/consent">
<input type="hidden" name="request_id" value="${view.requestId}"><input type="hidden" name="csrf_token" value="${view.csrfToken}">
${agentOptions.length > 0 ? html`<fieldset><legend>Connect as</legend>${agentOptions.map((o) => html`<label><input type="radio" name="agent" value="${o.team.teamId}:${o.agent.id}"${o === firstChoice ? new Html(' checked') : ''}> ${o.agent.name} <span class="muted">(${o.team.teamName})</span></label>`)}
<label><input type="radio" name="agent" value="new"> a new agent (below)</label></fieldset>` : html`<input type="hidden" name="agent" value="new"><p>You have no agent yet. Name one to connect it.</p>`}
<fieldset><legend>New agent</legend>
<label for="new_agent_team">Team</label><select id="new_agent_team" name="new_agent_team">${teamsWithoutChoice.map((t) => html`<option value="${t.teamId}">${t.teamName} (${t.teamSlug})</option>`)}</select>
<label for="new_agent_name">Name</label><input id="new_agent_name" name="new_agent_name" type="text" maxlength="100" placeholder="e.g. Sales assistant"></fieldset>
<button class="primary" type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`);
}

export function errorPage(title: string, message: string): string {
  return layout(title, html`<h1>${title}</h1><p>${message}</p><p class="muted">Close this window and start again from the application.</p>`);
}

/** A simple page: a heading, paragraphs, and optionally a form of buttons (used by the approval link). */
export function layoutPage(
  title: string,
  heading: string,
  paragraphs: string[],
  form?: { action: string; buttons: { name: string; value: string; label: string; primary?: boolean }[] },
): string {
  return layout(title, html`<h1>${heading}</h1>${paragraphs.map((p) => html`<p style="white-space:pre-wrap">${p}</p>`)}
${form ? html`<form method="post" action="${form.action}">${form.buttons.map((b) => html`<button${b.primary ? new Html(' class="primary"') : ''} type="submit" name="${b.name}" value="${b.value}">${b.label}</button>`)}</form>` : ''}`);
}
