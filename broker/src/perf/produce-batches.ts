// A claim of records becomes record batches: one per partition, keyed records placed by murmur2,
// unkeyed ones sticky (the whole claim to one partition, rotating per claim, as Kafka's sticky
// partitioner does), each batch encoded with the producer's id and sequences.
import { partitionForKey } from '../client/partitioner';
import type { CompressionType } from '../protocol/compression';
import { encodeRecordBatch, RecordInput } from '../protocol/record-batch';
import type { Payloads } from './payload';
import type { Producer, Target } from './producer-fleet';
import type { Claim } from './rate-limiter';

/** One partition's share of a claim, encoded. */
export interface PartitionBatch {
  target: Target;
  indexes: number[];
  batch: Buffer;
  /** Key + value bytes of its records. */
  bytes: number;
}

export class ClaimPartitioner {
  private sticky = 0;

  constructor(
    private readonly payloads: Pick<Payloads, 'key'>,
    private readonly keyed: boolean,
    private readonly partitionCount: number,
  ) {}

  /** The claim's record indexes by partition. */
  split(claim: Claim): Map<number, number[]> {
    const byPartition = new Map<number, number[]>();
    if (!this.keyed) {
      const all = Array.from({ length: claim.count }, (_, k) => claim.first + k);
      byPartition.set(this.sticky++ % this.partitionCount, all);
      return byPartition;
    }
    for (let i = claim.first; i < claim.first + claim.count; i++) {
      const p = partitionForKey(this.payloads.key(i)!, this.partitionCount);
      let list = byPartition.get(p);
      if (!list) byPartition.set(p, (list = []));
      list.push(i);
    }
    return byPartition;
  }
}

export class ClaimEncoder {
  private readonly partitioner: ClaimPartitioner;

  constructor(
    private readonly payloads: Payloads,
    private readonly targets: Target[],
    private readonly opts: {
      keys: number;
      compression: CompressionType;
      idempotent: boolean;
      /** --transactional-id: the batches carry the transactional attribute. */
      transactionalId?: string;
    },
  ) {
    this.partitioner = new ClaimPartitioner(payloads, opts.keys > 0, targets.length);
  }

  encode(producer: Producer, claim: Claim, timestamp: bigint): PartitionBatch[] {
    const batches: PartitionBatch[] = [];
    for (const [p, indexes] of this.partitioner.split(claim))
      batches.push(this.encodeOne(producer, p, indexes, timestamp));
    return batches;
  }

  private encodeOne(producer: Producer, partition: number, indexes: number[], timestamp: bigint): PartitionBatch {
    let bytes = 0;
    const records: RecordInput[] = indexes.map((i) => {
      const key = this.payloads.key(i);
      const value = this.payloads.value(i);
      bytes += value.length + (key ? key.length : 0);
      return { key, value };
    });
    const seq = producer.sequences.get(partition) ?? 0;
    const batch = encodeRecordBatch({
      records,
      compression: this.opts.compression,
      baseTimestamp: timestamp,
      producerId: producer.producerId,
      producerEpoch: producer.producerEpoch,
      baseSequence: this.opts.idempotent ? seq : -1,
      isTransactional: this.opts.transactionalId !== undefined,
    });
    if (this.opts.idempotent) producer.sequences.set(partition, (seq + records.length) % 2 ** 31);
    return { target: this.targets[partition]!, indexes, batch, bytes };
  }
}
