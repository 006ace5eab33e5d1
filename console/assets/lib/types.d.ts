// Types of the console's DOM helpers (lib/dom.js), written as TypeScript because they refer to themselves.

/**
 * What an element is made of: nodes and text; null, undefined and false are left out (a part
 * that is not there), arrays are flattened.
 */
export type Child = Node | string | number | boolean | null | undefined | Child[];

/**
 * An element's attributes: `class`, `dataset`, `on<event>` listeners, and the others as
 * attributes (true: present; false, null, undefined: absent).
 */
export interface Attrs {
  [name: string]: unknown;
  class?: string;
  dataset?: Record<string, string>;
  onclick?: (ev: MouseEvent) => unknown;
  onsubmit?: (ev: SubmitEvent) => unknown;
}
