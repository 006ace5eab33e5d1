// @ts-check
/* An email's HTML body shown as it will look, safely. It is drawn in an <iframe sandbox> whose
 * sandbox leaves out allow-scripts, so nothing in it runs (scripts, event handlers, javascript:
 * links), forms do not submit and nothing opens a window. The frame is a srcdoc document of the
 * console's origin (allow-same-origin, so this module can fill it) and inherits the console's CSP:
 * nothing loads from another host. That CSP also refuses a style written in the markup (a style
 * attribute, a <style> element), so the HTML is read in an inert document with those renamed, and
 * their CSS is applied through the CSSOM (which the CSP allows) with any url() left out. */

/** Elements that load something or run something: left out of the preview. */
const DROPPED =
  'script,noscript,link,meta,base,iframe,frame,frameset,object,embed,applet,video,audio,source,track,portal';
/** Attributes that load something: left out (an image's src only when it is not a data: image). */
const LOADING = ['src', 'srcset', 'background', 'poster', 'action', 'formaction', 'ping', 'lowsrc', 'dynsrc'];

/** CSS without what would load from elsewhere (a url, an import rule), which the CSP would refuse. */
const noLoads = (/** @type {string} */ css) =>
  css.replace(/@import[^;]*;?/gi, '').replace(/url\(\s*(['"]?)(?!data:image\/)[^)]*\)/gi, 'none');

/**
 * The HTML parsed where nothing runs or loads (DOMParser), with the markup's styles renamed so that
 * the parse applies none, and its event handlers renamed so that none is compiled (the CSP would
 * refuse, and report, each).
 * @param {string} html
 */
function inert(html) {
  const renamed = html
    .replace(/<style\b/gi, '<template data-preview-sheet')
    .replace(/<\/style\s*>/gi, '</template>')
    .replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/(\s)(style|on[a-z]+)(\s*=)/gi, '$1data-preview-$2$3'));
  const parsed = new DOMParser().parseFromString(renamed, 'text/html');
  const sheets = [...parsed.querySelectorAll('template[data-preview-sheet]')].map((t) => {
    const text = /** @type {HTMLTemplateElement} */ (t).content.textContent || '';
    t.remove();
    return noLoads(text);
  });
  for (const el of parsed.querySelectorAll(DROPPED)) el.remove();
  for (const el of parsed.querySelectorAll('*')) {
    for (const attr of [...el.attributes]) {
      const loads = LOADING.includes(attr.name) && !(attr.name === 'src' && /^data:image\//i.test(attr.value));
      if (loads || /^(on|data-preview-on)/.test(attr.name) || /^\s*javascript:/i.test(attr.value))
        el.removeAttribute(attr.name);
    }
  }
  return { body: parsed.body, sheets };
}

/**
 * A preview frame: `show(html)` draws that HTML in it (again at each call).
 * @param {string} id
 * @param {string} label what the frame is, for a screen reader
 */
export function htmlPreview(id, label) {
  const frame = document.createElement('iframe');
  frame.id = id;
  frame.className = 'html-preview';
  frame.title = label;
  frame.setAttribute('sandbox', 'allow-same-origin');
  frame.srcdoc = '<!doctype html><html lang="en"><head><title>Preview</title></head><body></body></html>';
  let html = '';
  let loaded = false;
  const draw = () => {
    const doc = frame.contentDocument;
    const win = doc && doc.defaultView;
    if (!loaded || !doc || !win) return;
    const { body, sheets } = inert(html);
    const drawn = /** @type {HTMLElement} */ (doc.importNode(body, true));
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (drawn.querySelectorAll('[data-preview-style]'))) {
      el.style.cssText = noLoads(el.getAttribute('data-preview-style') || '');
      el.removeAttribute('data-preview-style');
    }
    doc.body.replaceWith(drawn);
    doc.adoptedStyleSheets = sheets.map((text) => {
      const sheet = new win.CSSStyleSheet();
      sheet.replaceSync(text);
      return sheet;
    });
  };
  frame.addEventListener('load', () => {
    loaded = true;
    draw();
  });
  return {
    el: frame,
    /** @param {string} text */
    show(text) {
      html = text;
      draw();
    },
  };
}
