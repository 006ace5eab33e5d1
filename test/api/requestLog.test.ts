import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { REQUEST_LOG } from '../../api/app';
import { requestLog } from '../../api/requestLog';

/**
 * An app behind the request log of a logger at `level`, whose lines land in `lines`: a probe,
 * a room's stream path, and `/boom`, which logs through `req.log` and answers 500.
 */
async function loggedApp(lines: any[], level = 'info'): Promise<{ base: string; close: () => void }> {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = express();
  app.set('query parser', 'simple');
  app.use(requestLog(pino({ name: 'api', level }, sink), REQUEST_LOG));
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.get('/agents/stream/:roomId', (_req, res) => void res.json({ ok: true }));
  app.get('/boom', (req, res) => {
    req.log?.warn({ detail: 1 }, 'about to fail');
    res.status(500).json({ error: 'x' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      // fetch keeps its connections alive: they would hold the server (and jest's worker) open.
      server.closeAllConnections();
      server.close();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** The request log line: what it records of every request, and what it never records. */
describe('request log', () => {
  const lines: any[] = [];
  let base: string;
  let close: () => void;

  beforeAll(async () => {
    ({ base, close } = await loggedApp(lines));
  });
  afterAll(() => close?.());

  it('records the request, its status, headers and time, with credentials redacted', async () => {
    lines.length = 0;
    await fetch(`${base}/agents/stream/r1?key=secret-key&after=3`, {
      headers: { authorization: 'Bearer tap_secret', cookie: 'tap_console=tap_secret; other=1', 'x-csrf-token': 'c' },
    });
    await settle();
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: 30,
      name: 'api',
      msg: 'request completed',
      req: {
        method: 'GET',
        url: '/agents/stream/r1?key=[redacted]&after=3',
        query: { key: '[redacted]', after: '3' },
        headers: {
          authorization: '[redacted]',
          cookie: 'tap_console=[redacted]; other=1',
          'x-csrf-token': '[redacted]',
        },
        remoteAddress: '127.0.0.1',
      },
      res: { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' } },
    });
    expect(typeof line.req.id).toBe('number');
    expect(typeof line.req.remotePort).toBe('number');
    expect(typeof line.responseTime).toBe('number');
    expect(JSON.stringify(line)).not.toContain('secret');
  });

  it('logs a 5xx as errored, and lines logged through req.log carry the request; the probes are not logged', async () => {
    lines.length = 0;
    await fetch(`${base}/boom`, { headers: { authorization: 'Bearer tap_secret' } });
    await fetch(`${base}/healthz`);
    await settle();
    expect(lines.map((l) => l.msg)).toEqual(['about to fail', 'request errored']);
    expect(lines[0]).toMatchObject({
      level: 40,
      detail: 1,
      req: { url: '/boom', headers: { authorization: '[redacted]' } },
    });
    expect(lines[1]).toMatchObject({ res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
    expect(lines[0].req.id).toBe(lines[1].req.id);
  });
});

describe('request log below info', () => {
  it('writes no request line at LOG_LEVEL=warn, while req.log still carries the request', async () => {
    const lines: any[] = [];
    const { base, close } = await loggedApp(lines, 'warn');
    try {
      await fetch(`${base}/agents/stream/r1`);
      await fetch(`${base}/boom`, { headers: { authorization: 'Bearer tap_secret' } });
      await settle();
    } finally {
      close();
    }
    expect(lines.map((l) => l.msg)).toEqual(['about to fail']);
    expect(lines[0]).toMatchObject({
      level: 40,
      detail: 1,
      req: { url: '/boom', headers: { authorization: '[redacted]' } },
    });
  });
});
