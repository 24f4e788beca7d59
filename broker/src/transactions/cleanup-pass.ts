// One pass of the coordinator's timeout and expiration task (Kafka's abortTimedOutTransactions,
// then TransactionStateManager's expiration), run by timers.ts every
// transaction.abort.timed.out.transaction.cleanup.interval.ms and by tests directly.
import type { Logger } from '../logger';
import type { KeyedSerial } from '../keyed-serial';
import { StorageError } from '../storage/storage';
import type { Storage, TransactionInfo, TxnPartition } from '../storage/storage';
import type { Recoveries } from './txn-checks';
import type { AddedPartitions } from './added-partitions';

/** What the pass needs of the coordinator. */
export interface CleanupHost {
  readonly storage: Storage;
  readonly logger: Logger;
  readonly now: () => number;
  readonly idExpirationMs: number;
  /** Read after each await: the broker may stop meanwhile. */
  isClosed(): boolean;
  /** The coordinator's turn per transactional id: a pass step and a request never interleave. */
  readonly serial: KeyedSerial<string>;
  readonly recoveries: Recoveries;
  /** Produce v12's record of added partitions (added-partitions.ts): forgotten for an id this pass ends. */
  readonly added: AddedPartitions;
  owns(transactionalId: string): boolean;
  onMarked(partitions: readonly TxnPartition[]): void;
  onStorageError(err: StorageError): void;
}

/**
 * An Ongoing transaction older than its timeout is aborted with an epoch bump, so its producer's
 * next request is fenced; an id neither Ongoing nor touched for transactional.id.expiration.ms is
 * deleted. A failure is logged and retried at the next pass.
 */
export async function runCleanupPass(host: CleanupHost): Promise<{ aborted: string[]; expired: string[] }> {
  const aborted: string[] = [];
  const expired: string[] = [];
  if (host.isClosed()) return { aborted, expired };
  let all: TransactionInfo[];
  try {
    all = await host.storage.transactions();
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    host.logger.error('reading transactions for the timeout check failed', { err });
    return { aborted, expired };
  }
  const now = host.now();
  for (const listed of all) {
    if (!host.owns(listed.transactionalId)) continue; // another broker's to time out
    try {
      // Each id's step runs in its turn (keyed-serial.ts) on its state as stored now: a request
      // may have ended or restarted the transaction since the list was read.
      await host.serial.run(listed.transactionalId, () =>
        cleanupOne(host, listed.transactionalId, now, aborted, expired),
      );
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      host.onStorageError(err);
      host.logger.error('transaction cleanup failed; retried at the next pass', {
        transactionalId: listed.transactionalId,
        err,
      });
    }
  }
  if (expired.length > 0) host.logger.info('expired transactional ids removed', { count: expired.length });
  return { aborted, expired };
}

async function cleanupOne(
  host: CleanupHost,
  transactionalId: string,
  now: number,
  aborted: string[],
  expired: string[],
): Promise<void> {
  if (host.isClosed()) return;
  host.added.forget(transactionalId);
  const t = await host.storage.transaction(transactionalId);
  if (!t) return;
  if (t.state === 'Ongoing' && t.startedMs + t.timeoutMs < now) {
    const { info, markedPartitions } = await host.storage.endTransaction(t.transactionalId, false, now, 'fence');
    // Kafka 4.1 lets the timed-out producer recover (KIP-360): its InitProducerId naming the
    // epoch it had gets the fenced epoch back, unbumped, until another InitProducerId comes.
    host.recoveries.set(t.transactionalId, {
      from: { producerId: t.producerId, producerEpoch: t.producerEpoch },
      to: { producerId: info.producerId, producerEpoch: info.producerEpoch },
    });
    aborted.push(t.transactionalId);
    host.logger.info('transaction timed out: aborted, its producer fenced', {
      transactionalId: t.transactionalId,
      producerId: info.producerId,
      producerEpoch: info.producerEpoch,
      timeoutMs: t.timeoutMs,
      partitions: markedPartitions.length,
    });
    host.onMarked(markedPartitions);
  } else if (t.state !== 'Ongoing' && t.updatedMs <= now - host.idExpirationMs) {
    if (await host.storage.deleteTransaction(t.transactionalId)) {
      host.recoveries.delete(t.transactionalId);
      expired.push(t.transactionalId);
    }
  }
}
