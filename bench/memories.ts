import type { Db } from '../db/knex';
import { searchMemories, topMemories } from '../services/agents/memorySearch';

/** Who the bench's memories are about, what happened, to what, and when: about a million combinations. */
// prettier-ignore
const PEOPLE = [
  'Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Barbara Liskov', 'Edsger Dijkstra', 'Katherine Johnson',
  'Linus Torvalds', 'Margaret Hamilton', 'Dennis Ritchie', 'Radia Perlman', 'Frances Allen', 'John McCarthy',
  'Donald Knuth', 'Hedy Lamarr', 'Claude Shannon', 'Ken Thompson', 'Anita Borg', 'Niklaus Wirth',
  'Sophie Wilson', 'Bjarne Stroustrup', 'Guido Rossum', 'Yukihiro Matsumoto', 'Jean Sammet', 'Adele Goldberg',
  'Alan Kay', 'Leslie Lamport', 'Shafi Goldwasser', 'Whitfield Diffie', 'Martin Hellman', 'Ivan Sutherland',
  'Fran Bilas', 'Kathleen Booth', 'Mary Keller', 'Joan Clarke', 'Evelyn Berezin', 'Jim Gray', 'Lynn Conway',
];
// prettier-ignore
const ACTIONS = [
  'prefers', 'asked about', 'complained about', 'wants a discount on', 'signed the contract for',
  'needs a quote for', 'is waiting for', 'paid the invoice for', 'cancelled', 'renewed', 'loves', 'dislikes',
  'requested a demo of', 'reported a bug in', 'upgraded', 'downgraded', 'asked us to pause', 'referred a friend to',
  'is evaluating', 'forgot the password for', 'approved the budget for', 'scheduled a call about', 'left a review of',
];
// prettier-ignore
const THINGS = [
  'the premium plan', 'invoices by email', 'the Frankfurt office', 'the Kubernetes cluster', 'green tea',
  'the mobile app', 'the annual subscription', 'weekly reports', 'the onboarding workshop', 'the API integration',
  'the WhatsApp channel', 'newsletter campaigns', 'the analytics dashboard', 'the printing service',
  'the delivery schedule', 'the warehouse in Rotterdam', 'the spring collection', 'custom packaging',
  'the loyalty programme', 'SMS reminders', 'the booking calendar', 'the translation service', 'paper invoices',
  'the support hotline', 'the data export', 'single sign-on', 'the billing address', 'the shipping rates',
  'the coffee machine lease', 'the website redesign', 'the Christmas campaign', 'the training videos',
  'the security audit', 'two-factor authentication', 'the partner portal', 'the marketing budget',
  'the product catalogue', 'the team offsite', 'the office plants', 'the conference tickets', 'the summer sale',
];
// prettier-ignore
const WHEN = [
  'before Friday', 'every Monday morning', 'since last spring', 'according to the sales call', 'in writing',
  'by phone', 'after the board meeting', 'for the Berlin team', 'for the Paris branch', 'again this quarter',
  'with a discount', 'without telling finance', 'in the last email', 'at the trade fair', 'during the demo',
  'for next year', 'as soon as possible', 'in German', 'in French', 'politely', 'urgently', 'twice this month',
  'via the chat widget', 'on the support ticket', 'through their assistant', 'after a long delay',
  'for the whole department', 'on behalf of the director', 'once the budget is approved',
];
const TAGS = ['client', 'billing', 'product', 'support', 'sales', 'ops', 'personal'];

/** A seeded generator, so every run asks the same queries. */
function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}

/** Words (real ones) and typos of longer words (a letter dropped, or two swapped). */
function queries(count: number): { kind: 'words' | 'typo'; q: string }[] {
  const pick = random(42);
  const words = [...new Set([...PEOPLE, ...ACTIONS, ...THINGS, ...WHEN].join(' ').toLowerCase().split(' '))].filter(
    (w) => w.length >= 4,
  );
  const long = words.filter((w) => w.length >= 6);
  const out: { kind: 'words' | 'typo'; q: string }[] = [];
  for (let i = 0; out.length < count; i++) {
    const word = long[pick(long.length)];
    const at = 1 + pick(word.length - 2);
    switch (i % 3) {
      case 0:
        out.push({ kind: 'words', q: words[pick(words.length)] });
        break;
      case 1:
        out.push({ kind: 'words', q: `${PEOPLE[pick(PEOPLE.length)].split(' ')[1]} ${THINGS[pick(THINGS.length)]}` });
        break;
      default:
        out.push({
          kind: 'typo',
          q: pick(2)
            ? word.slice(0, at) + word.slice(at + 1)
            : word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2),
        });
    }
  }
  return out;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * (h) `search_memories` at BENCH_MEMORIES memories of one agent: seeded with one INSERT … SELECT,
 * analysed, then searched one query at a time (words and typos, warmed up first); p95 target ≤ 50 ms.
 * Then `topMemories` (what every turn loads) for a sentence around each query; p95 target ≤ 30 ms.
 */
export async function benchMemories(o: {
  db: Db;
  team: (prefix: string) => Promise<{ teamId: string; agentId: string }>;
  memories: number;
  log: (line: string) => void;
}): Promise<string[]> {
  const { teamId, agentId } = await o.team('bench-memories');
  const started = performance.now();
  const part = (list: string[], index: string) => `(?::text[])[1 + (${index}) % ${list.length}]`;
  await o.db.raw(
    `INSERT INTO memories (id, team_id, agent_id, content, tags, importance, created_at, updated_at)
     SELECT 'mem_bench' || g, ?, ?,
            ${part(PEOPLE, 'g')} || ' ' || ${part(ACTIONS, `g / ${PEOPLE.length}`)} || ' ' ||
            ${part(THINGS, `g / ${PEOPLE.length * ACTIONS.length}`)} || ' ' || ${part(WHEN, 'g * 7')} ||
            ' (note ' || g || ')',
            ARRAY[${part(TAGS, 'g')}], 1 + (g * 3) % 5, now() - make_interval(secs => g), now() - make_interval(secs => g)
     FROM generate_series(1, ?) g`,
    [teamId, agentId, PEOPLE, ACTIONS, THINGS, WHEN, TAGS, o.memories],
  );
  await o.db.raw('ANALYZE memories');
  await o.db.raw('ANALYZE memory_words');
  const seedSeconds = (performance.now() - started) / 1000;
  const [{ words }] = await o.db('memory_words').where({ agent_id: agentId }).count({ words: '*' });

  const asked = queries(Number(process.env.BENCH_MEMORY_QUERIES ?? 300));
  for (const { q } of asked.slice(0, 30)) await searchMemories(o.db, teamId, agentId, { q, limit: 10 });
  const timings: Record<'all' | 'words' | 'typo', number[]> = { all: [], words: [], typo: [] };
  let hits = 0;
  const missed: Record<'words' | 'typo', string[]> = { words: [], typo: [] };
  for (const { kind, q } of asked) {
    const t = performance.now();
    const { data } = await searchMemories(o.db, teamId, agentId, { q, limit: 10 });
    const ms = performance.now() - t;
    timings.all.push(ms);
    timings[kind].push(ms);
    hits += data.length;
    if (!data.length) missed[kind].push(q);
  }
  const turnTimings: number[] = [];
  const message = (q: string) => `Hi, can you tell me what we know about ${q} before the call?`;
  for (const { q } of asked.slice(0, 30)) await topMemories(o.db, agentId, message(q), 8);
  let turnsOnTopic = 0;
  for (const { kind, q } of asked) {
    const t = performance.now();
    const loaded = await topMemories(o.db, agentId, message(q), 8);
    turnTimings.push(performance.now() - t);
    // A real word's memories should be among what the turn loads.
    if (kind === 'words' && loaded.some((m) => m.content.toLowerCase().includes(q.toLowerCase().split(' ')[0])))
      turnsOnTopic++;
  }
  const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
  const row = (label: string, list: number[]) => {
    const s = sorted(list);
    return `| ${label} | ${list.length} | ${percentile(s, 50).toFixed(1)} | ${percentile(s, 95).toFixed(1)} | ${s[s.length - 1].toFixed(1)} |`;
  };
  const p95 = (list: number[]) => percentile(sorted(list), 95).toFixed(1);
  const out = [
    `## (h) search_memories at ${o.memories.toLocaleString('en')} memories of one agent (seeded in ${seedSeconds.toFixed(1)} s, ${words} vocabulary words)`,
    '| queries | n | p50 ms | p95 ms | max ms |',
    '|---|---|---|---|---|',
    row('all (searchMemories, limit 10)', timings.all),
    row('words (one word, or a surname and a thing)', timings.words),
    row('typos (a letter dropped or two swapped)', timings.typo),
    row('topMemories for a turn (a sentence around the query, limit 8)', turnTimings),
    `searchMemories p50 ${percentile(sorted(timings.all), 50).toFixed(1)} ms, p95 **${p95(timings.all)} ms** (target ≤ 50); ${(hits / asked.length).toFixed(1)} hits per query, ${missed.words.length} word queries and ${missed.typo.length} typos without a hit${
      missed.words.length + missed.typo.length
        ? ` (e.g. ${[...missed.words.slice(0, 3), ...missed.typo.slice(0, 5)].map((q) => `"${q}"`).join(', ')})`
        : ''
    }`,
    `topMemories p50 ${percentile(sorted(turnTimings), 50).toFixed(1)} ms, p95 **${p95(turnTimings)} ms** (target ≤ 30); ${turnsOnTopic} of ${timings.words.length} turns about real words load a memory holding the (first) word`,
  ];
  o.log(out.join('\n'));
  return out;
}
