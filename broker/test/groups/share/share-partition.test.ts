// The share-partition state machine (KIP-932): acquisition, acknowledgement, locks, delivery limit.
import {
  AcknowledgeType,
  RecordState,
  SharePartition,
  type SharePartitionLimits,
} from '../../../src/groups/share/share-partition';

const LIMITS: SharePartitionLimits = { deliveryCountLimit: 3, lockDurationMs: 1000, maxInFlight: 100 };
const A = 'member-a';
const B = 'member-b';

describe('SharePartition', () => {
  it('hands each offset to one member at a time, as ranges', () => {
    const p = new SharePartition(10, 10, LIMITS);
    expect(p.acquire(A, 10, 14, 3, 0)).toEqual([{ firstOffset: 10, lastOffset: 12, deliveryCount: 1 }]);
    expect(p.nextFetchOffset(0)).toBe(13);
    expect(p.acquire(B, 10, 14, 10, 0)).toEqual([{ firstOffset: 13, lastOffset: 14, deliveryCount: 1 }]);
    expect(p.acquire(B, 10, 14, 10, 0)).toEqual([]);
    expect(p.endOffset).toBe(15);
  });

  it('moves the start offset over accepted records, not over records still held', () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 3, 10, 0);
    expect(p.acknowledge(A, 1, 2, [AcknowledgeType.ACCEPT], 0)).toBe(true);
    expect(p.startOffset).toBe(0);
    expect(p.acknowledge(A, 0, 0, [AcknowledgeType.ACCEPT], 0)).toBe(true);
    expect(p.startOffset).toBe(3);
    expect(p.record(3)?.state).toBe(RecordState.ACQUIRED);
  });

  it('takes an acknowledgement of offsets below the start offset as done, as Kafka 4.1.1 answers it', () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 3, 10, 0);
    expect(p.acknowledge(A, 0, 1, [AcknowledgeType.ACCEPT], 0)).toBe(true);
    expect(p.startOffset).toBe(2);
    // Again (e.g. a retried request), and across the start offset: only offset 2 changes.
    expect(p.acknowledge(A, 0, 0, [AcknowledgeType.ACCEPT], 0)).toBe(true);
    expect(p.acknowledge(B, 1, 1, [AcknowledgeType.REJECT], 0)).toBe(true);
    expect(p.acknowledge(A, 1, 2, [AcknowledgeType.RELEASE, AcknowledgeType.RELEASE], 0)).toBe(true);
    expect(p.record(2)?.state).toBe(RecordState.AVAILABLE);
    expect(p.startOffset).toBe(2);
  });

  it('redelivers a released record with a higher delivery count', () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 1, 10, 0);
    expect(p.acknowledge(A, 0, 1, [AcknowledgeType.RELEASE, AcknowledgeType.ACCEPT], 0)).toBe(true);
    expect(p.nextFetchOffset(0)).toBe(0);
    expect(p.acquire(B, 0, 1, 10, 0)).toEqual([{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
  });

  it('archives a rejected record and a gap', () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 1, 10, 0);
    expect(p.acknowledge(A, 0, 1, [AcknowledgeType.REJECT, AcknowledgeType.GAP], 0)).toBe(true);
    expect(p.startOffset).toBe(2);
    expect(p.acquire(B, 0, 1, 10, 0)).toEqual([]);
  });

  it('archives a record released at the delivery count limit', () => {
    const p = new SharePartition(0, 0, LIMITS);
    for (let n = 1; n <= 3; n++) {
      expect(p.acquire(A, 0, 0, 10, 0)).toEqual([{ firstOffset: 0, lastOffset: 0, deliveryCount: n }]);
      expect(p.acknowledge(A, 0, 0, [AcknowledgeType.RELEASE], 0)).toBe(true);
    }
    expect(p.acquire(A, 0, 0, 10, 0)).toEqual([]);
    expect(p.startOffset).toBe(1);
  });

  it('makes a record available again when its lock ends, and refuses the late acknowledgement', () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 0, 10, 0);
    expect(p.nextLockEnd()).toBe(1000);
    expect(p.acquire(B, 0, 0, 10, 999)).toEqual([]);
    expect(p.acquire(B, 0, 0, 10, 1000)).toEqual([{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
    expect(p.acknowledge(A, 0, 0, [AcknowledgeType.ACCEPT], 1001)).toBe(false);
    expect(p.acknowledge(B, 0, 0, [AcknowledgeType.ACCEPT], 1001)).toBe(true);
  });

  it('archives at the limit when the lock ends', () => {
    const p = new SharePartition(0, 0, { ...LIMITS, deliveryCountLimit: 1 });
    p.acquire(A, 0, 0, 10, 0);
    expect(p.expireLocks(1000)).toBe(true);
    expect(p.startOffset).toBe(1);
  });

  it("refuses a whole acknowledgement batch when one offset is not the member's", () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 0, 1, 0);
    p.acquire(B, 0, 1, 1, 0);
    expect(p.acknowledge(A, 0, 1, [AcknowledgeType.ACCEPT], 0)).toBe(false);
    expect(p.record(0)?.state).toBe(RecordState.ACQUIRED);
    expect(p.acknowledge(A, 0, 1, [AcknowledgeType.ACCEPT, AcknowledgeType.ACCEPT, AcknowledgeType.ACCEPT], 0)).toBe(
      false,
    );
  });

  it("gives a leaving member's records back", () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 2, 10, 0);
    expect(p.releaseMember(A)).toBe(3);
    expect(p.acquire(B, 0, 2, 10, 0)).toEqual([{ firstOffset: 0, lastOffset: 2, deliveryCount: 2 }]);
  });

  it('stops acquiring new offsets at the in-flight limit', () => {
    const p = new SharePartition(0, 0, { ...LIMITS, maxInFlight: 2 });
    expect(p.acquire(A, 0, 9, 10, 0)).toEqual([{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
  });

  it('can acquire at the in-flight limit only records available again (Kafka canAcquireRecords)', () => {
    const p = new SharePartition(0, 0, { ...LIMITS, maxInFlight: 2 });
    expect(p.canAcquireRecords(0)).toBe(true);
    p.acquire(A, 0, 9, 10, 0);
    expect(p.canAcquireRecords(0)).toBe(false); // both held, no room for offset 2
    expect(p.canAcquireRecords(LIMITS.lockDurationMs)).toBe(true); // the locks ended: available again
    p.acquire(A, 0, 9, 10, LIMITS.lockDurationMs);
    p.acknowledge(A, 1, 1, [AcknowledgeType.ACCEPT], LIMITS.lockDurationMs);
    expect(p.canAcquireRecords(LIMITS.lockDurationMs)).toBe(false); // offset 0 still holds the start
    p.acknowledge(A, 0, 0, [AcknowledgeType.ACCEPT], LIMITS.lockDurationMs);
    expect(p.canAcquireRecords(LIMITS.lockDurationMs)).toBe(true); // the start moved past both
  });

  it('resumes from a snapshot with acquisitions made available again', () => {
    const p = new SharePartition(5, 5, LIMITS);
    p.acquire(A, 5, 8, 10, 0);
    p.acknowledge(A, 5, 5, [AcknowledgeType.ACCEPT], 0);
    p.acknowledge(A, 7, 7, [AcknowledgeType.RELEASE], 0);
    const s = p.snapshot();
    expect(s.startOffset).toBe(6);
    const q = SharePartition.fromSnapshot(s, LIMITS);
    expect(q.startOffset).toBe(6);
    expect(q.endOffset).toBe(9);
    expect(q.acquire(B, 6, 8, 10, 0)).toEqual([{ firstOffset: 6, lastOffset: 8, deliveryCount: 2 }]);
  });

  it('drops records below a new log start offset', () => {
    const p = new SharePartition(0, 0, LIMITS);
    p.acquire(A, 0, 3, 10, 0);
    p.moveStartTo(2);
    expect(p.startOffset).toBe(2);
    expect(p.record(1)).toBeUndefined();
    expect(p.record(2)?.state).toBe(RecordState.ACQUIRED);
  });
});
