// Producer ids on PostgreSQL: from the producer_id_seq sequence (via the producer table's default),
// so brokers sharing a database never hand out the same id. (A transactional id's producer id and
// epoch are transactions.ts', which allocates from the same table.)
import type { Db, Queryable } from './db';

export async function newProducerId(q: Queryable | Db, transactionalId: string | null, nowMs: number): Promise<number> {
  const [row] = await q.query<{ producer_id: number }>(
    'INSERT INTO producer (transactional_id, epoch, updated_ms) VALUES ($1, 0, $2) RETURNING producer_id',
    [transactionalId, nowMs],
  );
  return row!.producer_id;
}
