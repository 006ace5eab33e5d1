/**
 * A team's webhook receiver, as small as one can be written: it verifies every POST with the
 * `standardwebhooks` package against WEBHOOK_SECRET (`whsec_…`, the secret the endpoint was
 * created with), prints each verified event once per `webhook-id` as a JSON line, and answers
 * 401 to anything not signed by that secret.
 *
 *   WEBHOOK_SECRET=whsec_… PORT=4900 node --import tsx scripts/webhook-receiver.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('WEBHOOK_SECRET is required (the whsec_… secret of the endpoint)');
  process.exit(2);
}
const verifier = new Webhook(secret);
const seen = new Set<string>();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event: { type: string; timestamp: string; data: unknown };
    try {
      event = verifier.verify(body, req.headers as Record<string, string>) as typeof event;
    } catch (err) {
      console.error(`refused: ${(err as Error).message}`);
      res.writeHead(401).end();
      return;
    }
    const id = String(req.headers['webhook-id']);
    // A retried delivery carries the same webhook-id: printed once, answered 2xx every time.
    if (!seen.has(id)) {
      seen.add(id);
      console.log(JSON.stringify({ webhookId: id, verified: true, type: event.type, data: event.data }));
    }
    res.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.error(`webhook receiver on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
