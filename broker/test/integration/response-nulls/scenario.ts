// What the response-nulls test's scenario tables (record-, group-, transaction-, admin- and
// security-scenarios.ts) are made of, and the request pieces they share.
import * as m from '../../../src/protocol/messages';
import { encodeRecordBatch } from '../../../src/protocol/record-batch';

export interface Scenario {
  name: string;
  /** The request body for version v (fields a version lacks are ignored by the codec). */
  body: (v: number) => unknown;
}

/** Scenarios by API key, in the order they are sent. */
export type ScenarioTable = Record<number, Scenario[]>;

/** The ids of the test's topics 't' and 'empty', known once it created them. */
export interface TopicIds {
  topicId: string;
  emptyId: string;
}

/** A topic id no topic has. */
export const OTHER_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

export const fetchBody = (topic: string, id: string, fetchOffset: bigint, isolationLevel = 0) => ({
  ...m.defaultFetchRequest(),
  maxWaitMs: 0,
  minBytes: 0,
  maxBytes: 1 << 20,
  isolationLevel,
  topics: [{ topic, topicId: id, partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
});
export const group = (v: number, name: string) => `nulls-${name}-${v}`;
export const batch = () => encodeRecordBatch({ records: [{ value: Buffer.from('y'), timestamp: BigInt(Date.now()) }] });
