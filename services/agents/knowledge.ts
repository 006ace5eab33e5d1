/**
 * Splits text into chunks of at most `size` characters, preferring paragraph, then sentence, then
 * word boundaries; each chunk after the first repeats up to `overlap` characters of the one before
 * so that a fact cut at a boundary is still found whole in one chunk.
 */
export function chunkText(text: string, size: number, overlap: number): string[] {
  const units = splitUnits(text.replace(/\r\n/g, '\n').trim(), size);
  const chunks: string[] = [];
  let current = '';
  for (const unit of units) {
    const candidate = current ? `${current}${unit.sep}${unit.text}` : unit.text;
    if (candidate.length <= size) {
      current = candidate;
      continue;
    }
    if (current) chunks.push(current);
    const carry = current ? tail(current, Math.min(overlap, size - unit.text.length - 1)) : '';
    current = carry ? `${carry} ${unit.text}` : unit.text;
  }
  if (current) chunks.push(current);
  return chunks;
}

interface Unit {
  text: string;
  sep: string;
}

/** Paragraphs, broken further into sentences and words where a piece is longer than `size`. */
function splitUnits(text: string, size: number): Unit[] {
  const units: Unit[] = [];
  for (const paragraph of text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (paragraph.length <= size) {
      units.push({ text: paragraph, sep: '\n\n' });
      continue;
    }
    const sentences = paragraph.match(/[^.!?]+[.!?]+["')\]]*\s*|[^.!?]+$/g) ?? [paragraph];
    sentences.forEach((sentence, i) => {
      const trimmed = sentence.trim();
      const sep = i === 0 ? '\n\n' : ' ';
      if (trimmed.length <= size) units.push({ text: trimmed, sep });
      else
        for (let start = 0; start < trimmed.length; start += size)
          units.push({ text: trimmed.slice(start, start + size), sep: start === 0 ? sep : '' });
    });
  }
  return units;
}

function tail(text: string, length: number): string {
  if (length <= 0) return '';
  const slice = text.slice(-length);
  const space = slice.indexOf(' ');
  return (space >= 0 && space < slice.length - 1 ? slice.slice(space + 1) : slice).trim();
}
