import net from 'node:net';

/** One SMTP reply: its code and its lines' text. */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * A raw SMTP conversation, one command at a time, for tests that look at each reply (a refused
 * RCPT, a 552 after DATA) the way a sending server meets them.
 */
export class SmtpDialog {
  private buffer = '';
  private lines: string[] = [];
  private waiters: (() => void)[] = [];

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\r\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 2);
      }
      this.waiters.splice(0).forEach((wake) => wake());
    });
  }

  static async open(port: number): Promise<{ dialog: SmtpDialog; greeting: SmtpReply }> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const dialog = new SmtpDialog(socket);
    return { dialog, greeting: await dialog.reply() };
  }

  /** The next whole reply (a multi-line one ends with `<code> `). */
  async reply(timeoutMs = 10_000): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    const text: string[] = [];
    for (;;) {
      const line = this.lines.shift();
      if (line === undefined) {
        if (Date.now() > deadline) throw new Error(`no SMTP reply; so far: ${text.join(' | ')}`);
        await new Promise<void>((resolve) => {
          this.waiters.push(resolve);
          setTimeout(resolve, 100);
        });
        continue;
      }
      text.push(line.slice(4));
      if (line[3] !== '-') return { code: Number(line.slice(0, 3)), text: text.join('\n') };
    }
  }

  async send(command: string): Promise<SmtpReply> {
    this.socket.write(`${command}\r\n`);
    return this.reply();
  }

  /** DATA, then the message (dot-stuffed) and its end; answers the reply to DATA and the final one. */
  async data(message: string): Promise<{ start: SmtpReply; end?: SmtpReply }> {
    const start = await this.send('DATA');
    if (start.code !== 354) return { start };
    const body = message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    this.socket.write(`${body}\r\n.\r\n`);
    return { start, end: await this.reply(30_000) };
  }

  close(): void {
    this.socket.end('QUIT\r\n');
    this.socket.destroy();
  }
}
