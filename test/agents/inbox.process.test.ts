import { spawn } from 'node:child_process';
import { nodeArgsFor } from '../../entryPoints';
import { freePort } from '../../temporal/freePort';
import { newTeam, testDb } from '../support/helpers';
import { SmtpDialog } from '../support/smtpDialog';

/**
 * inbox.ts as `npm start` runs it: a process of its own on INBOX_SMTP_PORT against the database,
 * which takes a message and stops cleanly (exit 0) on SIGTERM.
 */
describe('the inbox process', () => {
  it('listens on INBOX_SMTP_PORT, stores a message, and exits 0 on SIGTERM', async () => {
    const db = testDb();
    try {
      const team = await newTeam(db, 'inbox-proc');
      const port = await freePort('127.0.0.1');
      const child = spawn(process.execPath, nodeArgsFor('inbox.ts'), {
        env: {
          ...process.env,
          INBOX_DOMAIN: 'inbox.localhost',
          INBOX_SMTP_PORT: String(port),
          INBOX_SMTP_HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('inbox SMTP listening')) resolve();
        });
        void exited.then((code) => reject(new Error(`inbox.ts exited ${code}: ${out}`)));
      });

      const { dialog, greeting } = await SmtpDialog.open(port);
      expect(greeting.code).toBe(220);
      await dialog.send('EHLO sender.example');
      expect((await dialog.send('MAIL FROM:<ops@example.com>')).code).toBe(250);
      expect((await dialog.send(`RCPT TO:<${team.agentId}@inbox.localhost>`)).code).toBe(250);
      const { end } = await dialog.data('From: ops@example.com\nSubject: from the process\n\nhello\n');
      expect(end?.code).toBe(250);
      dialog.close();
      expect(await db('inbox_messages').where({ agent_id: team.agentId }).pluck('subject')).toEqual([
        'from the process',
      ]);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});
