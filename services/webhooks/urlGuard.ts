import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ruleBroken } from '../platform/errors';

/**
 * The SSRF guard of outbound webhooks: a URL whose host is, or resolves to, a private, loopback,
 * link-local or otherwise non-public address is refused, unless the deployment allows it
 * (WEBHOOK_ALLOW_PRIVATE_URLS, docs/EVENTS.md). Checked when an endpoint is saved and again on
 * every connection the delivery makes (the DNS answer may have changed since).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** Whether `address` (an IP literal) is not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

const refused = (url: string, reason: string) =>
  ruleBroken('webhook_url_refused', `The webhook URL ${url} is refused: ${reason}`, { url, reason });

/**
 * Validates a webhook URL for saving: https (http too when private addresses are allowed, for
 * local receivers), no credentials in it, and every address its host resolves to public unless
 * `allowPrivate`. Throws 422 `webhook_url_refused`.
 */
export async function checkWebhookUrl(url: string, { allowPrivate }: { allowPrivate: boolean }): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refused(url, 'not a URL');
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:'))
    throw refused(url, 'only https URLs are accepted');
  if (parsed.username || parsed.password) throw refused(url, 'credentials in the URL are not accepted');
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) throw refused(url, 'the host is loopback');
  const addresses = isIP(host) ? [host] : await resolveAll(url, host);
  const bad = addresses.find(isPrivateAddress);
  if (bad) throw refused(url, `the host resolves to a private or loopback address (${bad})`);
}

async function resolveAll(url: string, host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw refused(url, 'the host does not resolve');
  }
}
