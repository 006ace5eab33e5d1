// @ts-check
/* The API as the signed-in person: /app/api with the session cookie and the page's CSRF token. */
const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') || '';

/** @import { ErrorEnvelope } from '../api/types' */

/**
 * The API as this person: same paths as /v1, answers { status, body }. The endpoint functions
 * (api/endpoints.js) give `body` its type; here it is the parsed JSON, text that is not JSON, or
 * undefined for none.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, body: any }>}
 */
export async function api(method, path, body) {
  const res = await fetch('/app/api' + path, {
    method,
    credentials: 'same-origin',
    headers: {
      'X-CSRF-Token': csrf,
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    window.location.assign('/app/login?next=' + encodeURIComponent(window.location.pathname));
    throw new Error('signed out');
  }
  const text = await res.text();
  /** @type {unknown} */
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch (_err) {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

/**
 * A file sent as multipart/form-data (field "file", as POST /v1/media takes it), with the page's CSRF token.
 * @param {string} path
 * @param {File} file
 * @returns {Promise<{ status: number, body: any }>}
 */
export async function upload(path, file) {
  const body = new FormData();
  body.append('file', file);
  const res = await fetch('/app/api' + path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'X-CSRF-Token': csrf, Accept: 'application/json' },
    body,
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/**
 * A file the API answers (a download), with the page's CSRF token: `{ status, blob, filename }` on
 * 200 (the name from its Content-Disposition), else `{ status, body }` with the error envelope.
 * @param {string} path
 * @returns {Promise<{ status: number, body: unknown, blob?: Blob, filename?: string }>}
 */
export async function download(path) {
  const res = await fetch('/app/api' + path, {
    credentials: 'same-origin',
    headers: { 'X-CSRF-Token': csrf },
  });
  if (res.status !== 200) return { status: res.status, body: await res.json().catch(() => undefined) };
  const named = /filename="([^"]*)"/.exec(res.headers.get('Content-Disposition') || '');
  return { status: 200, body: undefined, blob: await res.blob(), filename: named ? named[1] : undefined };
}

/**
 * An answer that is not the one asked for, in words: the API's error message and code, else its status.
 * @param {{ status: number, body: unknown }} res
 */
export function errorText(res) {
  const body = /** @type {Partial<ErrorEnvelope> | null | undefined} */ (res.body);
  return body && body.error ? body.error.message + ' (' + body.error.code + ')' : 'HTTP ' + res.status;
}
