/** HTML built from a template: every interpolated value is escaped unless it is already rendered `Html`. */

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Tagged template that escapes every interpolated value unless it is already rendered `Html`. */
export class Html {
  constructor(readonly text: string) {}
}
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    const rendered = Array.isArray(value)
      ? value.map((v) => (v instanceof Html ? v.text : escapeHtml(String(v)))).join('')
      : value instanceof Html
        ? value.text
        : value === undefined || value === null || value === false
          ? ''
          : escapeHtml(String(value));
    out += rendered + strings[i + 1];
  });
  return new Html(out);
}
