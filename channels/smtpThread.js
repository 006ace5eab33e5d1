// The SMTP sender thread (channels/smtpSender.ts starts it). Plain CommonJS so it loads the same
// under tsx, jest and the workflow-free bundle.
//
// Why a thread: composing and writing messages off the worker's main thread pays neither for the
// async-context propagation that the Temporal activity context (AsyncLocalStorage) turns on, nor
// for collections of a heap that holds the SDK, and the main thread records chunks meanwhile.
// The transports are channels/smtpWire.js: pipelining connections and messages composed as one
// string (nodemailer's streams cost several times the CPU per message; docs/BENCHMARKS.md run 36).
const { parentPort } = require('node:worker_threads');
const { SmtpWirePool } = require('./smtpWire');

/** @type {Map<number, SmtpWirePool>} */
const transports = new Map();

// Replies go back in batches, one postMessage per turn of the loop rather than per message.
let replies = [];
const reply = (r) => {
  if (!replies.length) setImmediate(flushReplies);
  replies.push(r);
};
function flushReplies() {
  const batch = replies;
  replies = [];
  parentPort.postMessage(batch);
}

parentPort.on('message', (batch) => {
  for (const msg of batch) handle(msg);
});

function handle(msg) {
  switch (msg.op) {
    case 'open':
      transports.set(msg.pool, new SmtpWirePool(msg.options));
      // The main thread waits for this before a paced send takes its first slot.
      reply({ id: msg.id, ok: true });
      return;
    case 'close': {
      const transport = transports.get(msg.pool);
      transports.delete(msg.pool);
      if (transport) transport.close();
      reply({ id: msg.id, ok: true });
      return;
    }
  }
  const transport = transports.get(msg.pool);
  if (!transport) {
    reply({ id: msg.id, ok: false, message: 'the SMTP pool is closed' });
    return;
  }
  if (msg.op === 'send')
    transport.send(msg.mail).then(
      (messageId) => reply({ id: msg.id, ...accepted(messageId) }),
      (err) => reply({ id: msg.id, ...refused(err) }),
    );
  // A batch is answered once, when every message of it has its answer: one wake-up of the main
  // thread per batch instead of one per message, with the refused ones alone (the main thread
  // knows each Message-ID: it wrote them).
  else if (msg.op === 'sendMany') {
    const refusals = [];
    Promise.all(
      msg.mails.map((mail, index) =>
        transport.send(mail).catch((err) => void refusals.push({ index, ...refused(err) })),
      ),
    ).then(() => reply(refusals.length ? { id: msg.id, ok: true, refusals } : { id: msg.id, ok: true }));
  }
}

const accepted = (messageId) => ({ ok: true, messageId });
const refused = (err) => ({
  ok: false,
  message: err && err.message ? err.message : String(err),
  responseCode: err && typeof err.responseCode === 'number' ? err.responseCode : undefined,
});
