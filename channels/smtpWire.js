// A pooled SMTP client for bulk sends, on the SMTP sender thread (channels/smtpThread.js). Each
// connection pipelines (RFC 2920): a message's envelope and DATA go in one write, and its content
// with the next message's envelope in the next, so a message costs one round trip on its
// connection. STARTTLS when the server offers it (or TLS from the start with `secure`), AUTH PLAIN
// or LOGIN when credentials are given. Plain CommonJS, like the thread.
const net = require('node:net');
const os = require('node:os');
const tls = require('node:tls');
const { bareAddress, composeMessage, dataPhase } = require('./smtpMime');

class SmtpError extends Error {
  constructor(message, responseCode) {
    super(message);
    this.responseCode = responseCode;
  }
}

/** One connection: its socket, its replies in order, and the transactions it runs one after another. */
class Connection {
  constructor(pool) {
    this.pool = pool;
    this.options = pool.options;
    this.buffer = '';
    this.lines = [];
    /** Waiters for the next replies, in order. */
    this.waiters = [];
    this.replies = [];
    this.sent = 0;
    this.closed = false;
    /** Messages taken from the queue and not yet answered: a lost connection fails them (retryable). */
    this.inFlight = new Set();
  }

  async open() {
    const o = this.options;
    const timeout = o.connectionTimeout ?? 10_000;
    this.socket = await new Promise((resolve, reject) => {
      const socket = o.secure
        ? tls.connect({ host: o.host, port: o.port, servername: net.isIP(o.host) ? undefined : o.host, ...o.tls })
        : net.connect({ host: o.host, port: o.port });
      const timer = setTimeout(
        () => socket.destroy(new Error(`SMTP connection to ${o.host}:${o.port} timed out`)),
        timeout,
      );
      socket.once(o.secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    this.listen(this.socket);
    await this.expect(220, o.greetingTimeout ?? 10_000);
    let features = await this.hello();
    if (!o.secure && !o.ignoreTLS && features.has('STARTTLS')) {
      this.write('STARTTLS\r\n');
      await this.expect(220);
      this.socket.removeAllListeners('data');
      this.socket = await new Promise((resolve, reject) => {
        const secured = tls.connect(
          { socket: this.socket, servername: net.isIP(o.host) ? undefined : o.host, ...o.tls },
          () => resolve(secured),
        );
        secured.once('error', reject);
      });
      this.listen(this.socket);
      features = await this.hello();
    }
    if (o.auth && o.auth.user) await this.authenticate(features.get('AUTH') ?? '');
    this.pipelining = features.has('PIPELINING');
    this.socket.setTimeout(o.socketTimeout ?? 60_000, () => this.fail(new Error('SMTP connection timed out')));
  }

  async hello() {
    this.write(`EHLO ${this.options.name ?? os.hostname()}\r\n`);
    const reply = await this.expect(250);
    // "250-PIPELINING", "250-AUTH PLAIN LOGIN": the extension, and what follows it.
    return new Map(
      reply.lines.slice(1).map((line) => {
        const [name, ...rest] = line.split(/[\s=]/);
        return [name.toUpperCase(), rest.join(' ').toUpperCase()];
      }),
    );
  }

  async authenticate(methods) {
    const { user, pass } = this.options.auth;
    if (/\bLOGIN\b/i.test(methods) && !/\bPLAIN\b/i.test(methods)) {
      this.write('AUTH LOGIN\r\n');
      await this.expect(334);
      this.write(`${Buffer.from(user).toString('base64')}\r\n`);
      await this.expect(334);
      this.write(`${Buffer.from(pass ?? '').toString('base64')}\r\n`);
    } else {
      this.write(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass ?? ''}`).toString('base64')}\r\n`);
    }
    await this.expect(235);
  }

  listen(socket) {
    socket.setNoDelay(true);
    // Replies are ASCII; the bytes stay bytes on the socket, so that STARTTLS can wrap it.
    socket.on('data', (chunk) => this.receive(chunk.toString('latin1')));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('SMTP connection closed')));
  }

  /** Splits what arrives into replies (a multi-line reply ends with "code SP"). */
  receive(chunk) {
    this.buffer += chunk;
    let end;
    while ((end = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, end > 0 && this.buffer[end - 1] === '\r' ? end - 1 : end);
      this.buffer = this.buffer.slice(end + 1);
      this.lines.push(line.slice(4));
      if (line[3] === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), lines: this.lines, text: line };
      this.lines = [];
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(reply);
      else this.replies.push(reply);
    }
  }

  nextReply(timeoutMs) {
    if (this.replies.length) return Promise.resolve(this.replies.shift());
    if (this.closed) return Promise.reject(this.closedBy);
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      if (timeoutMs) {
        const timer = setTimeout(() => this.fail(new Error('SMTP server did not answer in time')), timeoutMs);
        waiter.resolve = (r) => {
          clearTimeout(timer);
          resolve(r);
        };
      }
      this.waiters.push(waiter);
    });
  }

  async expect(code, timeoutMs) {
    const reply = await this.nextReply(timeoutMs);
    if (reply.code !== code) throw new SmtpError(`SMTP ${reply.text}`, reply.code);
    return reply;
  }

  write(text) {
    if (!this.closed) this.socket.write(text);
  }

  /** The connection is lost: whatever waits on it fails, as retryable (no reply code). */
  fail(err) {
    if (this.closed) return;
    this.closed = true;
    this.closedBy = err;
    for (const waiter of this.waiters.splice(0)) waiter.reject(err);
    for (const job of this.inFlight) job.reject(err);
    this.inFlight.clear();
    this.socket?.destroy();
    this.pool.lost(this);
  }

  envelope(job) {
    return `MAIL FROM:<${bareAddress(job.mail.from ?? '')}>\r\nRCPT TO:<${bareAddress(job.mail.to)}>\r\nDATA\r\n`;
  }

  /** Takes the next message of the pool's queue for this connection. */
  take() {
    const job = this.pool.take();
    if (job) this.inFlight.add(job);
    return job;
  }

  settle(job, err) {
    this.inFlight.delete(job);
    if (err) job.reject(err);
    else job.resolve(job.mail.messageId);
  }

  /** MAIL, RCPT, DATA one at a time, for a server without PIPELINING. */
  async stepwise(job) {
    const replies = [];
    for (const command of this.envelope(job).split(/(?<=\r\n)/)) {
      this.write(command);
      const reply = await this.nextReply();
      replies.push(reply);
      if (reply.code >= 400) break;
    }
    return replies;
  }

  /** Runs the pool's queue on this connection until it is empty (or the connection used up). */
  async run() {
    let job = this.take();
    if (job && this.pipelining) this.write(this.envelope(job));
    while (job) {
      const replies = this.pipelining
        ? [await this.nextReply(), await this.nextReply(), await this.nextReply()]
        : await this.stepwise(job);
      const expected = [250, 250, 354];
      const refused = replies.find((r, i) => r.code !== expected[i] && !(i === 1 && r.code === 251));
      let next;
      if (refused) {
        // The DATA was accepted anyway (a server that defers its verdict): end it empty, then reset.
        if (replies[2]?.code === 354) {
          this.write('.\r\n');
          await this.nextReply();
        }
        this.write('RSET\r\n');
        await this.nextReply();
        this.settle(job, new SmtpError(`SMTP ${refused.text}`, refused.code));
        next = this.take();
        if (next && this.pipelining) this.write(this.envelope(next));
      } else {
        this.sent++;
        next = this.sent < (this.options.maxMessages ?? Infinity) ? this.take() : null;
        // The content, and the next message's envelope behind it in the same write.
        this.write(dataPhase(job.message) + (next && this.pipelining ? this.envelope(next) : ''));
        const done = await this.nextReply();
        this.settle(job, done.code === 250 ? null : new SmtpError(`SMTP ${done.text}`, done.code));
      }
      job = next;
    }
  }

  quit() {
    this.write('QUIT\r\n');
    this.socket?.end();
    this.closed = true;
    this.pool.lost(this);
  }
}

/** A pool of pipelining connections fed from one queue; `send` resolves with the Message-ID. */
class SmtpWirePool {
  constructor(options) {
    this.options = options;
    this.queue = [];
    this.connections = new Set();
    /** Connections that wait for work. */
    this.idle = [];
    this.closing = false;
  }

  send(mail) {
    return new Promise((resolve, reject) => {
      if (this.closing) return reject(new Error('the SMTP pool is closed'));
      this.queue.push({ mail, message: composeMessage(mail), resolve, reject });
      this.dispatch();
    });
  }

  take() {
    return this.queue.shift() ?? null;
  }

  /** Work for an idle connection, else a new connection while under the limit. */
  dispatch() {
    while (this.queue.length && this.idle.length) this.work(this.idle.pop());
    if (!this.queue.length || this.connections.size >= (this.options.maxConnections ?? 5)) return;
    // After a failed connect beside live ones, the live ones carry the queue for a second; then try again.
    const wait = (this.pausedUntil ?? 0) - Date.now();
    if (wait <= 0) this.connect();
    else
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        this.dispatch();
      }, wait);
  }

  connect() {
    const connection = new Connection(this);
    this.connections.add(connection);
    connection.open().then(
      () => this.work(connection),
      (err) => {
        // Not a reply code: a failed connect or greeting is retryable, a refused login is not.
        connection.fail(err);
        // No connection to this server: the queue fails now rather than wait on a dead host.
        if (!this.connections.size) for (const job of this.queue.splice(0)) job.reject(err);
        else this.pausedUntil = Date.now() + 1_000;
      },
    );
  }

  work(connection) {
    connection.busy = true;
    connection.run().then(
      () => {
        connection.busy = false;
        if (connection.closed) return;
        if (connection.sent >= (this.options.maxMessages ?? Infinity)) connection.quit();
        else this.idle.push(connection);
        this.dispatch();
      },
      (err) => {
        connection.fail(err);
        this.dispatch();
      },
    );
  }

  /** A connection closed: its in-flight messages failed with it; the queue goes on elsewhere. */
  lost(connection) {
    this.connections.delete(connection);
    this.idle = this.idle.filter((c) => c !== connection);
    if (!this.closing) setImmediate(() => this.dispatch());
  }

  close() {
    this.closing = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the SMTP pool is closed'));
    for (const connection of [...this.connections]) if (!connection.busy) connection.quit();
  }
}

module.exports = { SmtpWirePool, SmtpError };
