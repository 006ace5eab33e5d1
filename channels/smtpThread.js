// The SMTP sender thread (channels/smtpSender.ts starts it). Plain CommonJS so it loads the same
// under tsx, jest and the workflow-free bundle: it needs nothing but nodemailer.
//
// Why a thread: nodemailer builds every message through a chain of streams, promises and ticks.
// On the worker's main thread each of those pays for the async-context propagation that the
// Temporal activity context (AsyncLocalStorage) turns on, and for collections of a heap that holds
// the SDK; here it pays for neither, and the main thread records chunks meanwhile.
const { parentPort } = require('node:worker_threads');
const nodemailer = require('nodemailer');

/** @type {Map<number, import('nodemailer').Transporter>} */
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
      transports.set(msg.pool, nodemailer.createTransport(msg.options));
      // The main thread waits for this before a paced send takes its first slot.
      reply({ id: msg.id, ok: true });
      return;
    case 'send': {
      const transport = transports.get(msg.pool);
      if (!transport) {
        reply({ id: msg.id, ok: false, message: 'the SMTP pool is closed' });
        return;
      }
      transport.sendMail(msg.mail).then(
        (info) => reply({ id: msg.id, ok: true, messageId: info.messageId }),
        (err) =>
          reply({
            id: msg.id,
            ok: false,
            message: err && err.message ? err.message : String(err),
            responseCode: err && typeof err.responseCode === 'number' ? err.responseCode : undefined,
          }),
      );
      return;
    }
    case 'close': {
      const transport = transports.get(msg.pool);
      transports.delete(msg.pool);
      if (transport) transport.close();
      reply({ id: msg.id, ok: true });
      return;
    }
  }
}
