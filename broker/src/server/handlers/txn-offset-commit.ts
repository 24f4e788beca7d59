// TxnOffsetCommit (key 28): v0-5, sendOffsetsToTransaction's second step: the group's offsets are
// staged in the transaction and become its committed offsets only when the transaction commits
// (KIP-98); v3+ carries the consumer's generation and member, checked as an OffsetCommit's
// (KIP-447). v5 is transaction version 2 (KIP-890 part 2): the producer sent no AddOffsetsToTxn,
// this request adds the group to the transaction. KafkaApis.handleTxnOffsetCommitRequest: WRITE on the transactional id and READ on the
// group (else every partition gets the error), READ on each topic, unknown partitions answered
// before the coordinator sees the rest.
import { storableOffset } from './groups/offset-commit';
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/messages';
import type { OffsetToCommitInTxn } from '../../transactions/txn-offsets';
import type { ApiHandler } from '../context';
import { authorizedNames, may } from './authz';
import { coordinatorGate } from '../cluster-answers';

export const txnOffsetCommitHandler: ApiHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> = {
  apiKey: ApiKey.TxnOffsetCommit,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const { broker } = ctx;
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE as number })),
    }));
    const all = (errorCode: number): TxnOffsetCommitResponse => {
      for (const t of topics) for (const p of t.partitions) p.errorCode = errorCode;
      return { throttleTimeMs: 0, topics };
    };
    if (!may(ctx, 'WRITE', 'TRANSACTIONAL_ID', req.transactionalId))
      return all(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!may(ctx, 'READ', 'GROUP', req.groupId)) return all(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    // Sent to the group's coordinator, as TxnOffsetCommit is in Kafka (src/cluster).
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    if (notHere !== ErrorCode.NONE) return all(notHere);
    const readable = authorizedNames(
      ctx,
      'READ',
      'TOPIC',
      req.topics.map((t) => t.name),
    );
    const offsets: OffsetToCommitInTxn[] = [];
    const answers: { errorCode: number }[] = [];
    const infos = await Promise.all(req.topics.map((t) => broker.storage.topic(t.name)));
    req.topics.forEach((t, ti) => {
      const info = infos[ti];
      t.partitions.forEach((p, pi) => {
        const out = topics[ti]!.partitions[pi]!;
        if (!readable.has(t.name)) out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        else if (!info || p.partitionIndex < 0 || p.partitionIndex >= info.partitionCount)
          out.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (!storableOffset(p.committedOffset)) out.errorCode = ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
        else {
          offsets.push({
            topic: t.name,
            partition: p.partitionIndex,
            offset: Number(p.committedOffset),
            leaderEpoch: p.committedLeaderEpoch ?? -1,
            metadata: p.committedMetadata,
          });
          answers.push(out);
        }
      });
    });
    if (offsets.length > 0) {
      const errors = await broker.transactions.commitOffsets(
        {
          transactionalId: req.transactionalId,
          groupId: req.groupId,
          producerId: Number(req.producerId),
          producerEpoch: req.producerEpoch,
          generationId: req.generationId ?? -1,
          memberId: req.memberId ?? '',
          groupInstanceId: req.groupInstanceId ?? null,
          addsGroup: ctx.apiVersion >= 5,
        },
        offsets,
      );
      errors.forEach((e, i) => (answers[i]!.errorCode = e));
    }
    return { throttleTimeMs: 0, topics };
  },
};
