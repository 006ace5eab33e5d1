import type { GlobalState } from './globalSetup';

export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<string, unknown>).__tapTestStack as GlobalState | undefined;
  if (!state) return;
  await Promise.all(state.workers.map((worker) => worker.stop()));
  await state.stack.temporal.stop();
  await state.stack.dropTestDatabase().catch(() => undefined);
  await state.stack.postgres.stop();
}
