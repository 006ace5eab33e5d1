import path from 'node:path';
import { Worker } from 'node:worker_threads';
/** The settings of a pool of SMTP connections (channels/smtpWire.js; plain data: they cross to the thread). */
export interface SmtpPoolOptions {
  host: string;
  port: number;
  /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  auth?: { user: string; pass?: string };
  maxConnections: number;
  /** Messages per connection before it is closed and another opened. */
  maxMessages: number;
  connectionTimeout: number;
  greetingTimeout: number;
  /** An idle or silent connection is closed after this long. */
  socketTimeout: number;
}

/** A message as the thread composes it (plain data: it crosses to the thread). */
export interface SmtpMail {
  from?: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  messageId: string;
  headers?: Record<string, string>;
}

/** A refused send as the thread reports it: the server's reply code, when there was a reply. */
export class SmtpSendError extends Error {
  constructor(
    message: string,
    readonly responseCode: number | undefined,
  ) {
    super(message);
  }
}

/**
 * A ceiling, not a size: the thread's live heap is a few MiB. Campaign bodies are at most 5 000
 * characters of text and 50 000 of HTML (services/campaigns/content.ts), other sends a request
 * body (BODY_LIMIT, 1 MB): every send in flight fits many times over.
 */
const SMTP_THREAD_HEAP_MB = 64;

/** One message's answer from the thread: accepted with its Message-ID, or refused. */
export type SmtpOutcome = { ok: true; messageId?: string } | { ok: false; message: string; responseCode?: number };

/** A message of a `sendMany` that the server refused: its place in the batch and the reply. */
export interface SmtpRefusal {
  index: number;
  message: string;
  responseCode?: number;
}

type Reply = { id: number; refusals?: SmtpRefusal[] } & SmtpOutcome;

/**
 * This process's SMTP sender thread (channels/smtpThread.js): every pooled SMTP transport lives
 * there and the main thread hands it messages. Started on the first SMTP pool; a thread that dies
 * fails what it held (retryable) and the next pool starts a new one.
 */
class SmtpThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(path.join(__dirname, 'smtpThread.js'), {
      resourceLimits: { maxOldGenerationSizeMb: SMTP_THREAD_HEAP_MB },
    });
    // Idle pools must not keep a process alive; a send in flight does (ref'd while any is out).
    worker.unref();
    worker.on('message', (replies: Reply[]) => {
      for (const reply of replies) {
        const waiter = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        waiter?.resolve(reply);
      }
      if (!this.pending.size) worker.unref();
    });
    worker.on('error', (err) => this.lose(worker, err));
    worker.on('exit', (code) => this.lose(worker, new Error(`the SMTP sender thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** The thread is gone: what it held fails (retryable), and the next request starts a new one. */
  private lose(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    // What was not posted yet was for the lost thread: its waiters fail below, its pools open again.
    this.outbox = [];
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }

  /** Ends the thread (the process is stopping, its pools closed); a later send starts a new one. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.lose(worker, new Error('the SMTP sender thread was stopped'));
    await worker.terminate();
  }

  /** Requests go out in batches, one postMessage per turn of the loop; all of them are for the live thread. */
  private outbox: Record<string, unknown>[] = [];
  private flushScheduled = false;
  private post(message: Record<string, unknown>): void {
    this.outbox.push(message);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const batch = this.outbox;
      this.outbox = [];
      if (batch.length) this.worker?.postMessage(batch);
    });
  }

  private ask(message: Record<string, unknown>): Promise<Reply> {
    const id = this.nextId++;
    const worker = this.thread();
    return new Promise<Reply>((resolve, reject) => {
      if (!this.pending.size) worker.ref();
      this.pending.set(id, { resolve, reject });
      this.post({ ...message, id });
    });
  }

  open(options: SmtpPoolOptions): SmtpPoolHandle {
    // The transport lives on the thread: a thread that died took it along, so the next send opens it again.
    let opened: { worker: Worker; pool: number; ready: Promise<Reply> } | undefined;
    const poolOnLiveThread = () => {
      const worker = this.thread();
      if (opened?.worker !== worker) {
        const pool = this.nextId++;
        opened = { worker, pool, ready: this.ask({ op: 'open', pool, options }) };
        // A thread lost before it answered fails the sends too; this promise needs no second report.
        opened.ready.catch(() => undefined);
      }
      return opened.pool;
    };
    poolOnLiveThread();
    return {
      ready: async () => {
        poolOnLiveThread();
        await opened!.ready;
      },
      send: async (mail) => {
        const reply = await this.ask({ op: 'send', pool: poolOnLiveThread(), mail });
        if (!reply.ok) throw new SmtpSendError(reply.message, reply.responseCode);
        return reply.messageId;
      },
      sendMany: async (mails) => {
        const reply = await this.ask({ op: 'sendMany', pool: poolOnLiveThread(), mails });
        if (!reply.ok) throw new SmtpSendError(reply.message, reply.responseCode);
        return reply.refusals ?? [];
      },
      close: async () => {
        if (opened?.worker !== this.worker) return;
        await this.ask({ op: 'close', pool: opened!.pool });
      },
    };
  }
}

export interface SmtpPoolHandle {
  /** Resolves once the thread runs and holds the transport: sends from then on leave when asked. */
  ready(): Promise<void>;
  /** Resolves with the Message-ID the server accepted; rejects with SmtpSendError. */
  send(mail: SmtpMail): Promise<string | undefined>;
  /**
   * Many messages in one hand-off, answered together once each has its answer: those refused (as
   * `send` would be, with the server's code), every other one accepted with its own Message-ID.
   * Rejects only when the thread or the pool is gone, which fails them all as retryable.
   */
  sendMany(mails: SmtpMail[]): Promise<SmtpRefusal[]>;
  close(): Promise<void>;
}

const smtpThread = new SmtpThread();

/** A pool of pipelining SMTP connections on this process's sender thread. */
export const openSmtpPool = (options: SmtpPoolOptions): SmtpPoolHandle => smtpThread.open(options);

/** Ends this process's sender thread: sends in flight fail as retryable; later sends start a new one. */
export const stopSmtpThread = (): Promise<void> => smtpThread.stop();
