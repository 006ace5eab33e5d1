import { html, Html } from '../platform/html';
import type { FormField, FormFieldName, FormRow } from './forms';

/**
 * The public pages of a form: plain HTML that works without JavaScript, styled by one served
 * stylesheet (the CSP allows no inline style or script), readable on a phone.
 */

/** The hidden field people never see; a bot that fills every input gives itself away. */
export const HONEYPOT_FIELD = 'website';
export const CONSENT_FIELD = 'consent';

export const FORM_CSS = `*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;background:#f5f5f7;color:#111;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:2rem 1rem;padding:2rem;border-radius:12px;max-width:32rem;width:100%;box-shadow:0 1px 4px #0002;overflow-wrap:anywhere}
@media (max-width:30rem){main{margin:.75rem .5rem;padding:1.25rem}}
h1{font-size:1.4rem;margin-top:0}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=email],input[type=text],input[type=tel]{width:100%;padding:.65rem;font-size:1rem;border:1px solid #888;border-radius:6px}
input:focus,button:focus{outline:3px solid #1d4ed8;outline-offset:2px}
input[aria-invalid=true]{border-color:#b91c1c}
.consent{display:flex;gap:.6rem;align-items:flex-start;margin:1.2rem 0 0;font-weight:400}
.consent input{width:1.25rem;height:1.25rem;margin-top:.15rem;flex:none}
.field-error{color:#b91c1c;margin:.25rem 0 0;font-size:.95rem}
.error{background:#fee2e2;color:#991b1b;padding:.6rem;border-radius:6px}
.required{color:#b91c1c}
button{margin-top:1.4rem;padding:.75rem 1.4rem;font-size:1rem;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;width:100%}
.muted{color:#555;font-size:.9rem}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}`;

const AUTOCOMPLETE: Record<FormFieldName, string> = {
  email: 'email',
  name: 'name',
  phone: 'tel',
  company: 'organization',
  title: 'organization-title',
  location: 'address-level2',
};
const INPUT_TYPE: Record<FormFieldName, string> = {
  email: 'email',
  name: 'text',
  phone: 'tel',
  company: 'text',
  title: 'text',
  location: 'text',
};

/** `cssHref` is relative to the page, so the stylesheet comes from the page's own origin ('self'). */
function layout(view: { title: string; language: string; cssHref: string; body: Html }): string {
  return html`<!doctype html><html lang="${view.language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${view.title}</title><link rel="stylesheet" href="${view.cssHref}"></head><body><main>${view.body}</main></body></html>`
    .text;
}

export interface FormPageState {
  values?: Partial<Record<FormFieldName, string>>;
  consent?: boolean;
  errors?: Partial<Record<FormFieldName, string>>;
}

function fieldInput(field: FormField, state: FormPageState): Html {
  const id = `f-${field.name}`;
  const error = state.errors?.[field.name];
  return html`<label for="${id}">${field.label}${field.required ? html` <span class="required" aria-hidden="true">*</span>` : ''}</label>
<input id="${id}" name="${field.name}" type="${INPUT_TYPE[field.name]}" autocomplete="${AUTOCOMPLETE[field.name]}" maxlength="${field.name === 'email' ? 320 : 200}" value="${state.values?.[field.name] ?? ''}"${field.required ? new Html(' required') : ''}${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}`;
}

/** The form itself; with `errors`, the same form again with what to fix and what was typed. */
export function formPage(form: FormRow, state: FormPageState = {}): string {
  const hasErrors = Object.keys(state.errors ?? {}).length > 0;
  return layout({
    title: form.title,
    language: form.language,
    cssHref: 'assets/form.css',
    body: html`<h1>${form.title}</h1>${form.description ? html`<p>${form.description}</p>` : ''}
${hasErrors ? html`<p class="error" role="alert">Please correct the fields marked below.</p>` : ''}
<form method="post" action="${form.id}">
${form.fields.map((field) => fieldInput(field, state))}
<div class="hp" aria-hidden="true"><label for="f-${HONEYPOT_FIELD}">Leave this field empty</label><input id="f-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" type="text" tabindex="-1" autocomplete="off"></div>
${form.consent_text ? html`<label class="consent"><input type="checkbox" name="${CONSENT_FIELD}" value="yes"${state.consent ? new Html(' checked') : ''}> <span>${form.consent_text}</span></label>` : ''}
<button type="submit">Sign up</button></form>
<p class="muted"><span class="required" aria-hidden="true">*</span> required</p>`,
  });
}

/** A page that tells a person what happened (thanks, confirmed, a refusal): no form. */
export function formNoticePage(view: {
  title: string;
  paragraphs: string[];
  language?: string;
  cssHref: string;
  alert?: boolean;
}): string {
  return layout({
    title: view.title,
    language: view.language ?? 'en',
    cssHref: view.cssHref,
    body: html`<h1>${view.title}</h1>${view.paragraphs.map((p) => (view.alert ? html`<p role="alert">${p}</p>` : html`<p>${p}</p>`))}`,
  });
}

/** The confirmation link's page: one button, since mail scanners open links (GET changes nothing). */
export function confirmFormPage(view: { title: string; language: string; question: string; action: string }): string {
  return layout({
    title: view.title,
    language: view.language,
    cssHref: '../assets/form.css',
    body: html`<h1>${view.title}</h1><p>${view.question}</p>
<form method="post" action="${view.action}"><button type="submit" name="confirm" value="yes">Yes, confirm my subscription</button></form>`,
  });
}
