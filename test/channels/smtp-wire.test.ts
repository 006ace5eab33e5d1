import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { createProvider } from '../../channels/providers';
import { stopSmtpThread } from '../../channels/smtpSender';
import { ProviderError } from '../../channels/types';
import { freePort } from '../../temporal/freePort';

// The client under test is plain CommonJS (it runs on the SMTP sender thread).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SmtpWirePool } = require('../../channels/smtpWire') as {
  SmtpWirePool: new (options: Record<string, unknown>) => {
    send(mail: Record<string, unknown>): Promise<string>;
    close(): void;
  };
};

/**
 * channels/smtpWire.js against a real SMTP server (smtp-server, as the providers' fake uses):
 * every message arrives once, parsed back by a real MIME parser (mailparser) to what was sent —
 * a non-ASCII subject, a line that starts with a dot, a long line, an HTML alternative, the
 * List-Unsubscribe headers; a refused recipient fails alone with its reply code; it logs in with
 * AUTH, upgrades with STARTTLS, and talks to a server that does not pipeline.
 */
describe('the pipelining SMTP client', () => {
  interface Received {
    from: string;
    to: string;
    parsed: ParsedMail;
    user?: string;
  }
  async function server(options: Partial<SMTPServerOptions> = {}) {
    const received: Received[] = [];
    const port = await freePort();
    const smtp = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      closeTimeout: 100,
      onRcptTo: (address, _session, callback) =>
        address.address.startsWith('refused')
          ? callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }))
          : callback(),
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
      onData: (stream, session, callback) => {
        void simpleParser(stream).then((parsed) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo[0].address,
            parsed,
            user: session.user as string | undefined,
          });
          callback();
        }, callback);
      },
      ...options,
    });
    await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
    return { port, received, stop: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
  }
  const pool = (port: number, extra: Record<string, unknown> = {}) =>
    new SmtpWirePool({ host: '127.0.0.1', port, secure: false, maxConnections: 3, maxMessages: 50, ...extra });

  it('sends 300 messages over 3 pipelining connections, each once and as written', async () => {
    const smtp = await server();
    const client = pool(smtp.port);
    try {
      const long = `A long line: ${'word '.repeat(40)}end`;
      const ids = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          client.send({
            from: 'news@acme.example',
            to: `person${i}@example.test`,
            subject:
              i === 7 ? 'Grüße, Zoë — ✓ ünïcödé everywhere in a subject long enough to need two words' : `Hi ${i}`,
            text: `Hello ${i}\n.a line that starts with a dot\n${long}\n`,
            ...(i % 2 ? { html: `<p>Hello <b>${i}</b> — café</p>` } : {}),
            messageId: `<campaign.ct_${i}.1@acme.example>`,
            headers: {
              'List-Unsubscribe': `<http://localhost/unsubscribe/ct_${i}>`,
              'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            },
          }),
        ),
      );
      expect(ids[3]).toBe('<campaign.ct_3.1@acme.example>');
      expect(smtp.received).toHaveLength(300);
      const byTo = new Map(smtp.received.map((r) => [r.to, r]));
      expect(byTo.size).toBe(300);
      for (const i of [0, 1, 7, 299]) {
        const { from, parsed } = byTo.get(`person${i}@example.test`)!;
        expect(from).toBe('news@acme.example');
        expect(parsed.messageId).toBe(`<campaign.ct_${i}.1@acme.example>`);
        expect(parsed.subject).toBe(
          i === 7 ? 'Grüße, Zoë — ✓ ünïcödé everywhere in a subject long enough to need two words' : `Hi ${i}`,
        );
        expect(parsed.text).toBe(`Hello ${i}\n.a line that starts with a dot\n${long}\n`);
        expect(parsed.html || undefined).toBe(i % 2 ? `<p>Hello <b>${i}</b> — café</p>` : undefined);
        const header = (key: string) => parsed.headerLines.find((h) => h.key === key)?.line;
        expect(header('list-unsubscribe')).toBe(`List-Unsubscribe: <http://localhost/unsubscribe/ct_${i}>`);
        expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
        expect(parsed.date).toBeInstanceOf(Date);
      }
    } finally {
      client.close();
      await smtp.stop();
    }
  });

  it('a body goes as 7bit up to lines of 998 characters, as quoted-printable past them, and parses back the same', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { composeMessage } = require('../../channels/smtpMime') as {
      composeMessage(mail: Record<string, unknown>): string;
    };
    for (const [width, encoding] of [
      [998, '7bit'],
      [999, 'quoted-printable'],
    ] as const) {
      const text = `short line\n${'x'.repeat(width)}\nlast`;
      const message = composeMessage({ to: 'a@example.test', subject: 'width', text, messageId: '<w@example.test>' });
      expect(message).toContain(`Content-Transfer-Encoding: ${encoding}`);
      expect(message.split('\r\n').every((line) => line.length <= 998)).toBe(true);
      expect((await simpleParser(message)).text).toBe(text);
    }
  });

  it('a refused recipient fails alone, with the reply code; the connection goes on', async () => {
    const smtp = await server();
    const client = pool(smtp.port, { maxConnections: 1 });
    try {
      const sends = ['a@example.test', 'refused@example.test', 'b@example.test'].map((to, i) =>
        client.send({ from: 'news@acme.example', to, subject: 's', text: 't', messageId: `<m${i}@acme.example>` }),
      );
      const results = await Promise.allSettled(sends);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ responseCode: 550 });
      expect(smtp.received.map((r) => r.to)).toEqual(['a@example.test', 'b@example.test']);
    } finally {
      client.close();
      await smtp.stop();
    }
  });

  it('logs in with AUTH, upgrades with STARTTLS, and talks to a server that does not pipeline', async () => {
    const smtp = await server({ disabledCommands: [], hidePIPELINING: true, authOptional: false });
    // smtp-server's own certificate is self-signed.
    const client = pool(smtp.port, { auth: { user: 'ada', pass: 'secret' }, tls: { rejectUnauthorized: false } });
    try {
      await Promise.all(
        [0, 1, 2, 3].map((i) =>
          client.send({
            from: 'news@acme.example',
            to: `p${i}@example.test`,
            subject: 's',
            text: 't',
            messageId: `<t${i}@x>`,
          }),
        ),
      );
      expect(smtp.received).toHaveLength(4);
      expect(smtp.received.every((r) => r.user === 'ada')).toBe(true);
    } finally {
      client.close();
      await smtp.stop();
    }
  });

  it('a server that is not there fails the sends (retryable: no reply code)', async () => {
    const client = pool(await freePort());
    const result = await client
      .send({ from: 'a@x', to: 'b@x', subject: 's', text: 't', messageId: '<z@x>' })
      .catch((err: { responseCode?: number }) => err);
    expect(result).toMatchObject({ code: 'ECONNREFUSED' });
    expect((result as { responseCode?: number }).responseCode).toBeUndefined();
    client.close();
  });

  it('the SMTP adapter sends a batch through its thread: each message answered alone, a refusal as its own permanent error', async () => {
    const smtp = await server();
    const adapter = createProvider(
      'smtp',
      { host: '127.0.0.1', port: smtp.port, maxConnections: 2 },
      {},
      {
        db: undefined as never,
        teamId: 'none',
      },
    );
    try {
      const message = (to: string) => ({
        channel: 'email' as const,
        to,
        from: 'Acme News <news@acme.example>',
        subject: 'Batch',
        text: 'Hello',
        idempotencyKey: `cmp_batch:${to.split('@')[0]}:1`,
      });
      const answers = await adapter.sendMany!(
        ['ann@example.test', 'refused@example.test', 'bob@example.test'].map(message),
      );
      expect(answers[0]).toEqual({ providerMessageId: '<cmp_batch.ann.1@acme.example>' });
      expect(answers[2]).toEqual({ providerMessageId: '<cmp_batch.bob.1@acme.example>' });
      const refusal = (answers[1] as { error: ProviderError }).error;
      expect(refusal).toBeInstanceOf(ProviderError);
      expect(refusal).toMatchObject({ retryable: false, status: 550 });
      expect(smtp.received.map((r) => r.parsed.messageId).sort()).toEqual([
        '<cmp_batch.ann.1@acme.example>',
        '<cmp_batch.bob.1@acme.example>',
      ]);
    } finally {
      await adapter.close();
      await stopSmtpThread();
      await smtp.stop();
    }
  });
});
