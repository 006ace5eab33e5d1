import { normalizeImportRow } from '../services/contacts/contactImport';
import { splitName } from '../services/contacts/contacts';
import { requestFingerprint } from '../services/platform/idempotency';
import { chunkText } from '../services/agents/knowledge';
import { decodeCursor, encodeCursor } from '../services/platform/pagination';
import { grants } from '../services/identity/principal';

describe('rules without I/O', () => {
  it('splits a name into the first word and the remainder', () => {
    expect(splitName('Ada')).toEqual({ first: 'Ada', last: null });
    expect(splitName('  Ada   Lovelace  King ')).toEqual({ first: 'Ada', last: 'Lovelace King' });
    expect(splitName('')).toEqual({ first: null, last: null });
    expect(splitName(undefined)).toEqual({ first: null, last: null });
  });

  it('round-trips cursors and refuses foreign ones', () => {
    expect(decodeCursor(encodeCursor(42))).toBe(42);
    expect(decodeCursor(undefined)).toBeNull();
    expect(() => decodeCursor('eyJzIjoiYSJ9')).toThrow(/cursor/);
    expect(() => decodeCursor('%%%')).toThrow(/cursor/);
  });

  it('fingerprints bodies independently of key order', () => {
    expect(requestFingerprint({ a: 1, b: { c: 2, d: [1, 2] } })).toBe(
      requestFingerprint({ b: { d: [1, 2], c: 2 }, a: 1 }),
    );
    expect(requestFingerprint({ a: 1 })).not.toBe(requestFingerprint({ a: 2 }));
  });

  it('lets mcp:use stand for read and write, and the narrow scopes only for their own', () => {
    expect(grants(['mcp:use'], 'write')).toBe(true);
    expect(grants(['mcp:read'], 'read')).toBe(true);
    expect(grants(['mcp:read'], 'write')).toBe(false);
    expect(grants(['mcp:write'], 'read')).toBe(false);
  });

  it('normalizes import rows', () => {
    expect(normalizeImportRow({ NAME: ' Bo ', Email: 'bo@x.io', tags: 'a|b, c', shoe: 42 })).toEqual({
      ok: true,
      fields: { name: 'Bo', email: 'bo@x.io', tags: ['a', 'b', 'c'] },
      extra: { shoe: 42 },
    });
    expect(normalizeImportRow({ email: '' })).toEqual({
      ok: false,
      message: 'a contact needs at least one of name, email or phone',
    });
    expect(normalizeImportRow({ name: '   ', email: 'a@b.co' })).toEqual({
      ok: true,
      fields: { email: 'a@b.co' },
      extra: {},
    });
    expect(normalizeImportRow({ constructor: 'x', email: 'a@b.co' })).toMatchObject({
      ok: true,
      extra: { constructor: 'x' },
    });
    expect(normalizeImportRow({ phone: 'x' })).toMatchObject({ ok: false });
  });

  describe('chunkText', () => {
    it('keeps short text whole', () => {
      expect(chunkText('Just one line.', 100, 10)).toEqual(['Just one line.']);
    });
    it('never exceeds the chunk size and loses no sentence', () => {
      const sentences = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} is here.`);
      const text = sentences.join(' ');
      const chunks = chunkText(text, 300, 50);
      for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(300);
      const joined = chunks.join(' ');
      for (const s of sentences) expect(joined).toContain(s);
    });
    it('repeats the end of one chunk at the start of the next', () => {
      const text = Array.from({ length: 40 }, (_, i) => `Fact ${i} holds.`).join(' ');
      const [first, second] = chunkText(text, 120, 30);
      // The longest start of `second` that is also the end of `first`: the carried overlap.
      let overlap = 0;
      for (let k = 1; k <= 30; k++) if (first.endsWith(second.slice(0, k))) overlap = k;
      expect(overlap).toBeGreaterThanOrEqual(10);
      expect(second.length).toBeGreaterThan(overlap);
    });
    it('splits a single endless word hard', () => {
      const chunks = chunkText('x'.repeat(1000), 300, 0);
      expect(chunks.map((c) => c.length)).toEqual([300, 300, 300, 100]);
    });
  });
});
