import fs from 'node:fs';
import os from 'node:os';

/** A process's resident set now, in MiB (0 once it has exited). */
export const rssOf = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/**
 * CPU seconds (user + system) a process has used so far (Linux clock ticks of 1/100 s);
 * `withReapedChildren`: and the children it has waited for.
 */
export const cpuOf = (pid: number, withReapedChildren = false): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (withReapedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / 100;
};

/** Samples a process's resident set every 250 ms; the function returned stops and gives the peak, in MiB. */
export function peakRss(pid: number): () => number {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 250);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssOf(pid));
  };
}

/** The clock ticks of the machine's CPUs spent busy (not idle or waiting on I/O) so far, in seconds. */
export const machineBusy = (): number => {
  const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
};

/** The pids of every process whose command name is `comm` (all of Postgres's backends, say). */
const processesNamed = (comm: string): number[] => {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === comm) pids.push(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return pids;
};

/** A process's CPU seconds as `cpuOf` reads them, or 0 once it has ended. */
const cpuOrZero = (pid: number, withReapedChildren = false): number => {
  try {
    return cpuOf(pid, withReapedChildren);
  } catch {
    return 0;
  }
};

/**
 * CPU seconds used so far by every process whose command name is `comm`, and by the children
 * they have reaped: a backend that ends during a window moves its time to its postmaster's count
 * instead of taking it out of the window (which read negative).
 */
export const cpuOfCommand = (comm: string): number =>
  processesNamed(comm).reduce((total, pid) => total + cpuOrZero(pid, true), 0);

/**
 * CPU seconds used so far by Postgres's processes, by role: `connections` (the backends of our
 * processes and the bench's, and every process that ended, which the postmaster reaped: closed
 * connections, autovacuum and parallel workers), `walwriter`, `checkpointer`, and `background`
 * (the background writer, the launchers, a live autovacuum worker).
 */
export const postgresByRole = (): Record<string, number> => {
  const roles: Record<string, number> = { connections: 0, walwriter: 0, checkpointer: 0, background: 0 };
  for (const pid of processesNamed('postgres')) {
    let title: string;
    try {
      title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // it ended meanwhile
    }
    // The postmaster (no title of its own): its time is idle; its children's is what it reaped.
    if (!title.startsWith('postgres:')) roles.connections += cpuOrZero(pid, true);
    else if (title.includes('walwriter')) roles.walwriter += cpuOrZero(pid);
    else if (title.includes('checkpointer')) roles.checkpointer += cpuOrZero(pid);
    else if (/background writer|launcher|logger|archiver|autovacuum worker/.test(title))
      roles.background += cpuOrZero(pid);
    else roles.connections += cpuOrZero(pid);
  }
  return roles;
};

/** Postgres's CPU ms per unit of work by role between two `postgresByRole` readings, on one line. */
export const postgresSplit = (from: Record<string, number>, to: Record<string, number>, units: number) =>
  Object.entries(to)
    .map(([role, s]) => `${role} ${((1000 * (s - from[role])) / units).toFixed(3)}`)
    .join(', ');

/**
 * Where the CPU of a stretch of a bench went: `take()` returns the seconds each part used since
 * the previous `take()` (or since creation), with the whole machine's busy seconds as `machine`.
 */
export function cpuLedger(parts: Record<string, () => number>): {
  take(): Record<string, number>;
  /** Runs `work`, and adds what each part spent during it to `into`. */
  during<T>(work: () => Promise<T>, into: Record<string, number>[]): Promise<T>;
} {
  const read = (): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(parts).map(([name, used]) => [name, used()])),
    machine: machineBusy(),
  });
  let last = read();
  return {
    take() {
      const now = read();
      const spent = Object.fromEntries(Object.entries(now).map(([name, s]) => [name, s - last[name]]));
      last = now;
      return spent;
    },
    async during(work, into) {
      this.take();
      const result = await work();
      into.push(this.take());
      return result;
    },
  };
}

/** `cpuLedger` over processes of ours (by pid) and the servers they use: every `temporal` and `postgres` process. */
export const stackLedger = (pids: Record<string, number | null>) =>
  cpuLedger({
    // null: a part that has no process in this stretch (it reads 0), so that every stretch has the same columns.
    ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, () => (pid === null ? 0 : cpuOf(pid))])),
    Temporal: () => cpuOfCommand('temporal'),
    Postgres: () => cpuOfCommand('postgres'),
  });

/** One side of a comparison, as `cpuLedger` took it: its windows, and how much work they did. */
export interface CpuSide {
  label: string;
  windows: Record<string, number>[];
  /** Units of work (jobs, starts) done in those windows together. */
  units: number;
  /** Wall seconds of those windows together. */
  seconds: number;
}

/** A markdown table of CPU milliseconds per unit of work (to `digits` places), per part, with the machine's busy share. */
export function cpuPerUnitTable(unit: string, sides: CpuSide[], digits = 1): string[] {
  const parts = Object.keys(sides[0].windows[0]).filter((part) => part !== 'machine');
  const sum = (side: CpuSide, part: string) => side.windows.reduce((total, w) => total + w[part], 0);
  const perUnit = (side: CpuSide, part: string) => ((1000 * sum(side, part)) / side.units).toFixed(digits);
  const busy = (side: CpuSide) => `${((100 * sum(side, 'machine')) / (side.seconds * os.cpus().length)).toFixed(0)} %`;
  return [
    `| CPU ms per ${unit} | ${parts.join(' | ')} | whole machine | machine busy |`,
    `|---|${parts.map(() => '---|').join('')}---|---|`,
    ...sides.map(
      (side) =>
        `| ${side.label} | ${parts.map((p) => perUnit(side, p)).join(' | ')} | ${perUnit(side, 'machine')} | ${busy(side)} |`,
    ),
  ];
}
