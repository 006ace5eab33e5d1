/**
 * A stand-in for a real model, for the agent walk-through: the test suite's fake
 * OpenAI-compatible server with a few fixed behaviours, so a person can see a streamed reply, a
 * tool call and an approval without model weights. It is not AI and says so in every reply.
 *
 *   npx tsx scripts/fake-model.ts [port]      → prints {"url":"http://127.0.0.1:<port>/v1"}
 *
 * A message mentioning "rooms" makes it call list_rooms; one mentioning "forget" makes it call
 * secret_clear (a sensitive write: an agent in manual mode waits for approval); after a tool
 * result it reports the result; anything else is echoed, streamed word by word.
 */
import { RecordedRequest, ScriptedReply, startModelServer } from '../test/fakes/modelServer';

function reply(request: RecordedRequest): ScriptedReply {
  const messages = request.body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const text = `(fake model) The tool answered: ${String(last.content).slice(0, 300)}`;
    return { chunks: text.split(/(?<= )/), chunkDelayMs: 20 };
  }
  const said = typeof last?.content === 'string' ? last.content : '';
  if (/rooms/i.test(said)) return { toolCalls: [{ name: 'list_rooms', arguments: { limit: 5 }, splitArguments: 3 }] };
  if (/forget/i.test(said))
    return {
      toolCalls: [{ name: 'secret_clear', arguments: { key: said.match(/[A-Z][A-Z0-9_]{2,}/)?.[0] ?? 'OLD_API_KEY' } }],
    };
  const text = `(fake model) You said: ${said}`;
  return { chunks: text.split(/(?<= )/), chunkDelayMs: 30 };
}

async function main() {
  const fake = await startModelServer({ defaultReply: reply, port: Number(process.argv[2] ?? 0) });
  process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
