import fs from 'node:fs';

/** A process's resident set now, in MiB (0 once it has exited). */
export const rssOf = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** CPU seconds (user + system) a process has used so far (Linux clock ticks of 1/100 s). */
export const cpuOf = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
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
