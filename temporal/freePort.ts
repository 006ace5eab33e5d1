import fs from 'node:fs';
import net from 'node:net';

/** The lowest port handed out: below it are well-known and registered services' ports. */
const LOWEST_PORT = 10_000;

/**
 * The lowest port of the kernel's ephemeral range, where `bind(0)` and every outgoing
 * connection's local port come from. Undefined where it cannot be read (not Linux).
 */
function ephemeralRangeStart(): number | undefined {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low > LOWEST_PORT + 1000 ? low : undefined;
  } catch {
    return undefined;
  }
}

const canListen = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });

async function ephemeralPort(host: string): Promise<number> {
  const probe = net.createServer();
  probe.unref();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, resolve);
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A port free to listen on, for a server this process starts (and may restart on the same port).
 *
 * On Linux it is picked below the ephemeral range. A port from `bind(0)` is in that range, and
 * once its probe closes, the kernel may hand it to any outgoing connection (a Postgres pool's, a
 * gRPC client's) or to another `bind(0)` before the server binds it, or while a test has the
 * server stopped for a restart; the server then fails with "address already in use".
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const ephemeralStart = ephemeralRangeStart();
  if (ephemeralStart) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = LOWEST_PORT + Math.floor(Math.random() * (ephemeralStart - LOWEST_PORT));
      if (await canListen(port, host)) return port;
    }
  }
  return ephemeralPort(host);
}
