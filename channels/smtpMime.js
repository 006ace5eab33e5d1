// The RFC 5322 / MIME text of one message, composed as one string (channels/smtpWire.js sends it).
// Plain CommonJS, like the SMTP sender thread that loads it. nodemailer builds the same message
// through a tree of nodes and a chain of streams; a campaign's messages are all of one shape
// (a text body, maybe an HTML alternative, a few headers), so a string is enough, and costs a
// small fraction of the CPU.
const { randomBytes } = require('node:crypto');

/** Header values never carry a line break: a template cannot inject a header. */
const oneLine = (value) => {
  const text = String(value);
  return text.includes('\n') || text.includes('\r') ? text.replace(/[\r\n]+/g, ' ') : text;
};

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * A header value: as it is when printable ASCII, else RFC 2047 encoded words (UTF-8, base64),
 * each at most 75 characters and cut on character boundaries, folded onto continuation lines.
 */
function encodeHeaderValue(value) {
  const text = oneLine(value);
  if (PRINTABLE_ASCII.test(text)) return text;
  const words = [];
  let chunk = '';
  // 45 bytes of UTF-8 are 60 characters of base64: with "=?UTF-8?B?" and "?=", 72.
  for (const char of text) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

/** Quoted-printable (RFC 2045 § 6.7) of UTF-8 text, with CRLF line breaks and lines of at most 76. */
function quotedPrintable(text) {
  const out = [];
  for (const line of text.split(/\r?\n/)) {
    const bytes = Buffer.from(line, 'utf8');
    let encoded = '';
    let width = 0;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      const last = i === bytes.length - 1;
      // Literal: printable ASCII but "=", and a space or tab that does not end the line.
      const literal = (b >= 33 && b <= 126 && b !== 61) || ((b === 32 || b === 9) && !last);
      const piece = literal ? String.fromCharCode(b) : `=${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;
      if (width + piece.length > 75) {
        encoded += '=\r\n';
        width = 0;
      }
      encoded += piece;
      width += piece.length;
    }
    out.push(encoded);
  }
  return out.join('\r\n');
}

/** A body part: as it is (7bit) when ASCII in lines SMTP carries (RFC 5322's 998), else quoted-printable. */
function bodyPart(contentType, text) {
  const crlf = text.replace(/\r?\n/g, '\r\n');
  // 7bit: printable ASCII, tabs and line breaks only, no line over 998 characters.
  const plain = !/[^\t\r\n\x20-\x7e]/.test(crlf) && longestLine(crlf) <= 998;
  return (
    `Content-Type: ${contentType}; charset=utf-8\r\n` +
    `Content-Transfer-Encoding: ${plain ? '7bit' : 'quoted-printable'}\r\n\r\n` +
    (plain ? crlf : quotedPrintable(crlf))
  );
}

/**
 * The length of the longest line of CRLF text. A scan, not a regular expression: `[^\r\n]{999}`
 * backtracks at every character of every line, a tenth of a millisecond per short message.
 */
function longestLine(text) {
  let longest = 0;
  for (let start = 0; ;) {
    const end = text.indexOf('\r\n', start);
    longest = Math.max(longest, (end === -1 ? text.length : end) - start);
    if (end === -1) return longest;
    start = end + 2;
  }
}

/** An address as the envelope needs it: the part in angle brackets, or the whole. */
const bareAddress = (address) => {
  const match = /<([^>]*)>\s*$/.exec(address);
  return (match ? match[1] : address).trim();
};

/** RFC 5322's date of `date`, written once a second: every message of a bulk send in that second has it. */
let dated = { second: NaN, text: '' };
function dateHeader(date) {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== dated.second) dated = { second, text: date.toUTCString().replace(/GMT$/, '+0000') };
  return dated.text;
}

/**
 * The message: `mail` is { from, to, subject, text, html?, messageId, headers? } (channels/smtpSender.ts
 * SmtpMail). Lines end in CRLF; the text is ready for the DATA phase but for dot-stuffing.
 */
function composeMessage(mail, date = new Date()) {
  let head =
    (mail.from ? `From: ${oneLine(mail.from)}\r\n` : '') +
    `To: ${oneLine(mail.to)}\r\n` +
    `Subject: ${encodeHeaderValue(mail.subject ?? '')}\r\n` +
    `Message-ID: ${oneLine(mail.messageId)}\r\n` +
    `Date: ${dateHeader(date)}\r\n` +
    'MIME-Version: 1.0\r\n';
  for (const [name, value] of Object.entries(mail.headers ?? {})) head += `${name}: ${encodeHeaderValue(value)}\r\n`;
  if (mail.html === undefined) return head + bodyPart('text/plain', mail.text ?? '');
  const boundary = `--_tap_${randomBytes(12).toString('hex')}`;
  return (
    head +
    `Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n` +
    `--${boundary}\r\n${bodyPart('text/plain', mail.text ?? '')}\r\n` +
    `--${boundary}\r\n${bodyPart('text/html', mail.html)}\r\n` +
    `--${boundary}--`
  );
}

/** The DATA phase's bytes: dot-stuffed, ending with the lone dot (its CRLF ends the last line, if that has none). */
const dataPhase = (message) => {
  // Most messages have no line that starts with a dot: they go as they are, not through a regular expression.
  const stuffed =
    message.startsWith('.') || message.includes('\r\n.') ? message.replace(/(^|\r\n)\./g, '$1..') : message;
  return `${stuffed}${message.endsWith('\r\n') ? '' : '\r\n'}.\r\n`;
};

module.exports = { composeMessage, dataPhase, bareAddress, encodeHeaderValue, quotedPrintable };
