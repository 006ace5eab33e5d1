import { newId, newIds, newTimeOrderedIds } from '../../db/ids';

/** Public ids: the prefix and 20 characters of [0-9a-z], random; time-ordered ones sort by when they were made. */
describe('ids', () => {
  it('gives distinct ids of the prefix and 20 characters of the alphabet', () => {
    const ids = newIds('ct', 10_000);
    expect(new Set(ids).size).toBe(10_000);
    for (const id of ids) expect(id).toMatch(/^ct_[0-9a-z]{20}$/);
    expect(newId('job')).toMatch(/^job_[0-9a-z]{20}$/);
    // Every character of the alphabet turns up, in each position: nothing is stuck.
    for (const position of [3, 12, 22]) expect(new Set(ids.map((id) => id[position])).size).toBe(36);
  });

  it('gives time-ordered ids as long as random ones, sorting after the ids of an earlier millisecond', async () => {
    const first = newTimeOrderedIds('msg', 1_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newTimeOrderedIds('msg', 1_000);
    expect(new Set([...first, ...later]).size).toBe(2_000);
    for (const id of [...first, ...later]) expect(id).toMatch(/^msg_[0-9a-z]{20}$/);
    const newestOfFirst = [...first].sort().at(-1)!;
    const oldestOfLater = [...later].sort()[0];
    expect(newestOfFirst < oldestOfLater).toBe(true);
    // The clock: the first 9 characters are base-36 milliseconds since the epoch, the same within a call.
    expect(new Set(first.map((id) => id.slice(4, 13))).size).toBe(1);
    expect(Math.abs(parseInt(first[0].slice(4, 13), 36) - Date.now())).toBeLessThan(10_000);
  });
});
