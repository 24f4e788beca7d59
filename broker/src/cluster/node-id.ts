// A broker's node id on a shared database: NODE_ID when set, else one taken once from a sequence
// and kept in a file of the broker's own (Kafka's meta.properties with broker.id.generation), so
// a restarted broker comes back under the same id and clients' cached metadata stays right.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Pool } from 'pg';

export const DEFAULT_NODE_ID_FILE = './data/minnow-node-id';

export async function resolveNodeId(pool: Pool, configured: number | undefined, file: string): Promise<number> {
  if (configured !== undefined) return configured;
  const stored = readNodeIdFile(file);
  if (stored !== undefined) return stored;
  const r = await pool.query<{ id: string }>(`SELECT nextval('cluster_node_id_seq') AS id`);
  const id = Number(r.rows[0]!.id);
  mkdirSync(dirname(file), { recursive: true });
  // Written whole then renamed: a crash leaves the old file or the new one, never half of one.
  writeFileSync(`${file}.tmp`, `${id}\n`);
  renameSync(`${file}.tmp`, file);
  return id;
}

function readNodeIdFile(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const id = Number(text.trim());
  if (!Number.isInteger(id) || id < 0 || id > 2 ** 31 - 1)
    throw new Error(`node id file ${file} holds ${JSON.stringify(text.trim())}, not a node id`);
  return id;
}
