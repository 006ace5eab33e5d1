import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations';

// Counts and sequences come back as JS numbers, not strings: every one we use fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Knex;

export function createDb(connectionString: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: connectionString,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ migrationSource });
  return applied as string[];
}
