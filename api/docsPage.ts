import fs from 'node:fs';
import { Router } from 'express';
import helmet from 'helmet';

/**
 * Redoc's self-contained browser bundle, from node_modules. Its one reference to another host is
 * the sidebar's Redocly logo, fetched from a CDN whatever the options; pointing it at `data:,`
 * makes the image fail, and Redoc then leaves it out, so the page loads nothing from elsewhere.
 */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
let redocBundle: string | undefined;
function redocStandalone(): string {
  if (!redocBundle) {
    const source = fs.readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    if (!source.includes(REDOC_LOGO))
      throw new Error('redoc.standalone.js changed: check what it loads from other hosts');
    redocBundle = source.replaceAll(REDOC_LOGO, 'data:,');
  }
  return redocBundle;
}

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="data:,">
  <title>Team Agent Platform API reference</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/redoc.standalone.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A file rather than an inline script, so the CSP needs no 'unsafe-inline' for scripts.
const init = (specUrl: string) => `Redoc.init(${JSON.stringify(specUrl)}, {
  hideDownloadButton: false,
  expandResponses: '200,201,202',
  pathInMiddlePanel: true,
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } },
}, document.getElementById('reference'));
`;

/**
 * The human reference of the API at /docs: Redoc rendering /v1/openapi.json. Redoc injects its
 * styles (styled-components) and runs its search index in a blob: worker, which the CSP allows;
 * everything else is this origin only.
 */
export function docsRouter(specPath: string): Router {
  const router = Router();
  router.use(
    '/docs',
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          workerSrc: ["'self'", 'blob:'],
          baseUri: ["'none'"],
          formAction: ["'none'"],
          frameAncestors: ["'none'"],
        },
      },
    }),
  );
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init(specPath));
  });
  router.get('/docs/redoc.standalone.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('application/javascript').send(redocStandalone());
  });
  return router;
}
