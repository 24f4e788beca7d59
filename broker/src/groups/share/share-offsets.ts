// The share-group offset admin (KIP-932: DescribeShareGroupOffsets, AlterShareGroupOffsets,
// DeleteShareGroupOffsets, and DeleteGroups of a share group), as Kafka's GroupCoordinatorService /
// GroupMetadataManager do it: a share-partition's "offset" is its start offset (SPSO), read from the
// loaded share-partition or the stored state, -1 where the group has none. Altering and deleting are
// refused while the group has members (NON_EMPTY_GROUP), and answer only once the state is stored.
import { ErrorCode } from '../../protocol/error-codes';
import type {
  AlterShareGroupOffsetsResponse,
  DeleteShareGroupOffsetsResponse,
  DescribeShareGroupOffsetsResponse,
} from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { Storage } from '../../storage/storage';
import type { ShareCoordinator } from './share-coordinator';
import type { SharePartitions } from './share-partitions';

type DescribedTopic = DescribeShareGroupOffsetsResponse['groups'][number]['topics'][number];
type AlteredTopic = AlterShareGroupOffsetsResponse['responses'][number];

/** PartitionFactory.UNINITIALIZED_START_OFFSET: the group has no state for the partition. */
export const UNINITIALIZED_START_OFFSET = -1;

/** Errors.UNKNOWN_TOPIC_OR_PARTITION.message(), which Kafka puts in these answers. */
const UNKNOWN_TOPIC_MESSAGE = 'This server does not host this topic-partition.';
/** Errors.NON_EMPTY_GROUP.message() (ShareGroup.validateEmptyGroup throws Errors.NON_EMPTY_GROUP.exception()). */
const NON_EMPTY_MESSAGE = 'The group is not empty.';

export interface GroupRefusal {
  errorCode: number;
  errorMessage: string;
}

export interface ShareOffsetsDeps {
  storage: Storage;
  coordinator: ShareCoordinator;
  partitions: SharePartitions;
}

export class ShareGroupOffsets {
  constructor(private readonly deps: ShareOffsetsDeps) {}

  /**
   * Whether `groupId` is a share group here: known to the coordinator (members now or since start),
   * or with stored share-partition state (a group whose members left before a restart).
   */
  async isShareGroup(groupId: string): Promise<boolean> {
    if (this.deps.coordinator.group(groupId)) return true;
    return (await this.deps.storage.sharePartitionsOfGroup(groupId)).length > 0;
  }

  /** Kafka's shareGroup(id) + validateEmptyGroup: why an alteration or deletion is refused, or null. */
  async refusal(groupId: string): Promise<GroupRefusal | null> {
    if (!(await this.isShareGroup(groupId)))
      return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` };
    if ((this.deps.coordinator.group(groupId)?.members.size ?? 0) > 0)
      return { errorCode: ErrorCode.NON_EMPTY_GROUP, errorMessage: NON_EMPTY_MESSAGE };
    return null;
  }

  /**
   * The start offset of one share-partition, or -1 while nothing is stored for it: Kafka answers
   * from its persister, which has a start offset only once a share-partition first changed (a
   * member fetched and nothing was there yet: -1). The loaded share-partition is read when there is
   * one, being ahead of its last write by at most the writes under way.
   */
  async startOffset(groupId: string, topicId: string, partition: number): Promise<number> {
    const stored = await this.deps.storage.sharePartition(groupId, topicId, partition);
    if (!stored) return UNINITIALIZED_START_OFFSET;
    const loaded = this.deps.partitions.peek(groupId, topicId, partition);
    return loaded ? (await loaded).startOffset : stored.startOffset;
  }

  /**
   * Kafka's initializedShareGroupPartitions: the partitions the group has state for (loaded or
   * stored) and those assigned to its members now (Kafka initializes them at assignment, -1 until a
   * member first fetches). Topic id -> sorted partitions.
   */
  async initializedPartitions(groupId: string): Promise<Map<string, number[]>> {
    const found = new Map<string, Set<number>>();
    const add = (topicId: string, partition: number) => {
      let s = found.get(topicId);
      if (!s) found.set(topicId, (s = new Set()));
      s.add(partition);
    };
    for (const p of await this.deps.storage.sharePartitionsOfGroup(groupId)) add(p.topicId, p.partition);
    for (const p of await this.deps.partitions.loaded(groupId)) add(p.topicId, p.partition);
    for (const p of this.deps.coordinator.group(groupId)?.assignedPartitions() ?? []) add(p.topicId, p.partition);
    return new Map([...found].map(([id, s]) => [id, [...s].sort((a, b) => a - b)]));
  }

  /** DescribeShareGroupOffsets for one group: `topics` null means every initialized partition. */
  async describe(
    groupId: string,
    topics: ReadonlyArray<{ topicName: string; partitions: readonly number[] }> | null,
  ): Promise<DescribedTopic[]> {
    const wanted: Array<{ topicName: string; topicId: string | null; partitions: readonly number[] }> = [];
    if (topics === null) {
      for (const [topicId, partitions] of await this.initializedPartitions(groupId)) {
        const t = await this.deps.storage.topicById(topicId);
        // A deleted topic's state is left out, as Kafka leaves out ids missing from its metadata image.
        if (t) wanted.push({ topicName: t.name, topicId, partitions });
      }
      wanted.sort((a, b) => (a.topicName < b.topicName ? -1 : a.topicName > b.topicName ? 1 : 0));
    } else {
      for (const t of topics) {
        const info = await this.deps.storage.topic(t.topicName);
        wanted.push({ topicName: t.topicName, topicId: info?.topicId ?? null, partitions: t.partitions });
      }
    }
    const out: DescribedTopic[] = [];
    for (const t of wanted) {
      const partitions: DescribedTopic['partitions'] = [];
      for (const partitionIndex of t.partitions) {
        // An unknown topic or partition is "no data" (-1), not an error, as for OffsetFetch.
        const startOffset =
          t.topicId === null ? UNINITIALIZED_START_OFFSET : await this.startOffset(groupId, t.topicId, partitionIndex);
        partitions.push({
          partitionIndex,
          startOffset: BigInt(startOffset),
          leaderEpoch: 0,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
        });
      }
      out.push({ topicName: t.topicName, topicId: t.topicId ?? ZERO_UUID, partitions });
    }
    return out;
  }

  /** AlterShareGroupOffsets on an empty share group (the caller checked `refusal`). */
  async alter(
    groupId: string,
    topics: ReadonlyArray<{
      topicName: string;
      partitions: ReadonlyArray<{ partitionIndex: number; startOffset: bigint }>;
    }>,
  ): Promise<AlteredTopic[]> {
    const out: AlteredTopic[] = [];
    for (const t of topics) {
      const info = await this.deps.storage.topic(t.topicName);
      const partitions: AlteredTopic['partitions'] = [];
      for (const p of t.partitions) {
        const unknown = !info || p.partitionIndex < 0 || p.partitionIndex >= info.partitionCount;
        if (unknown) {
          partitions.push({
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: UNKNOWN_TOPIC_MESSAGE,
          });
          continue;
        }
        if (p.startOffset < 0n) {
          partitions.push({
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCode.INVALID_REQUEST,
            errorMessage: `The start offset ${p.startOffset} of partition ${p.partitionIndex} of topic ${t.topicName} is negative; give an offset >= 0.`,
          });
          continue;
        }
        await this.deps.partitions.reset(groupId, info.topicId, p.partitionIndex, Number(p.startOffset));
        partitions.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null });
      }
      out.push({ topicName: t.topicName, topicId: info?.topicId ?? ZERO_UUID, partitions });
    }
    return out;
  }

  /** DeleteShareGroupOffsets on an empty share group (the caller checked `refusal`). */
  async deleteOffsets(
    groupId: string,
    topicNames: readonly string[],
  ): Promise<DeleteShareGroupOffsetsResponse['responses']> {
    const initialized = await this.initializedPartitions(groupId);
    const out: DeleteShareGroupOffsetsResponse['responses'] = [];
    for (const topicName of topicNames) {
      const info = await this.deps.storage.topic(topicName);
      const partitions = info ? initialized.get(info.topicId) : undefined;
      if (!info || !partitions) {
        out.push({
          topicName,
          topicId: info?.topicId ?? ZERO_UUID,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: info ? 'There is no offset information to delete.' : UNKNOWN_TOPIC_MESSAGE,
        });
        continue;
      }
      for (const p of partitions) await this.deps.partitions.forget(groupId, info.topicId, p);
      out.push({ topicName, topicId: info.topicId, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    return out;
  }

  /** DeleteGroups of a share group: NON_EMPTY_GROUP with members, else its state and the group go. */
  async deleteGroup(groupId: string): Promise<number> {
    const refused = await this.refusal(groupId);
    if (refused) return refused.errorCode;
    for (const [topicId, partitions] of await this.initializedPartitions(groupId)) {
      for (const p of partitions) await this.deps.partitions.forget(groupId, topicId, p);
    }
    this.deps.coordinator.deleteGroup(groupId);
    return ErrorCode.NONE;
  }
}
