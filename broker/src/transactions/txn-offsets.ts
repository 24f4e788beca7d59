// TxnOffsetCommit's group checks (KIP-447): Kafka's ClassicGroup.validateOffsetCommit with
// isTransactional. Unlike a plain OffsetCommit, a commit without member id and generation is
// accepted whatever the group's state (older producers send none), and a rebalance in progress
// does not refuse it.
import { ErrorCode } from '../protocol/error-codes';
import { OFFSET_METADATA_MAX_BYTES } from '../groups/group-offsets';
import { Group, validateCurrentMember } from '../groups/group';
import { GroupState } from '../groups/group-state';

/** What every request after InitProducerId names: the producer and its epoch. */
export interface ProducerIdAndEpoch {
  producerId: number;
  producerEpoch: number;
}

export interface TxnOffsetCommitInput extends ProducerIdAndEpoch {
  transactionalId: string;
  groupId: string;
  /** -1 (v0-2, or a producer that does not pass the consumer's group metadata). */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /**
   * TxnOffsetCommit v5+ (transaction version 2): the group joins the transaction with this request,
   * as AddOffsetsToTxn would have added it (KIP-890 part 2: the producer sends no AddOffsetsToTxn).
   */
  addsGroup?: boolean;
}

export interface OffsetToCommitInTxn {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
}

/**
 * NONE, or the error every partition of the request gets. A group held only by its stored offsets
 * (not in memory) is unknown to the coordinator: a generation >= 0 for it is ILLEGAL_GENERATION
 * (OffsetMetadataManager.validateTransactionalOffsetCommit).
 */
export function validateTxnOffsetCommit(group: Group | undefined, req: TxnOffsetCommitInput): number {
  // Kafka creates a simple (Empty) group for generation -1, which then accepts the commit.
  if (!group) return req.generationId >= 0 ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.NONE;
  if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (req.generationId < 0 && group.is(GroupState.Empty)) return ErrorCode.NONE;
  if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return error;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  }
  return ErrorCode.NONE;
}

/** Each offset's error (OFFSET_METADATA_TOO_LARGE or NONE), and the valid ones to store (null metadata as ''). */
export function validateTxnOffsets(offsets: readonly OffsetToCommitInTxn[]): {
  errors: number[];
  valid: OffsetToCommitInTxn[];
} {
  const errors = offsets.map((o) =>
    o.metadata !== null && Buffer.byteLength(o.metadata) > OFFSET_METADATA_MAX_BYTES
      ? ErrorCode.OFFSET_METADATA_TOO_LARGE
      : ErrorCode.NONE,
  );
  const valid = offsets
    .filter((_, i) => errors[i] === ErrorCode.NONE)
    .map((o) => ({ ...o, metadata: o.metadata ?? '' }));
  return { errors, valid };
}
