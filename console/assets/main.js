// @ts-check
/* The team console's entry module: it loads the module of the page the server rendered (its name is
 * in the page list, console/pages.ts: the page `campaign` is ./pages/campaign.js). No framework, no
 * inline handlers (the CSP forbids them): every element is built with the DOM API, so text from
 * the API is never parsed as HTML. */
import { pageName, setStatus } from './lib/frame.js';

// On a phone the sections scroll sideways: bring the current one into view.
const current = document.querySelector('nav a[aria-current="page"]');
if (current) current.scrollIntoView({ block: 'nearest', inline: 'center' });

if (/^[a-z]+$/.test(pageName))
  import('./pages/' + pageName + '.js')
    .then((/** @type {{ default: () => unknown }} */ page) => page.default())
    .catch((err) => setStatus('Something went wrong: ' + err.message));
