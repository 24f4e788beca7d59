// What the ACL refusal tables (topic-, group- and cluster-refusals.ts) are made of: one request per
// API an ACL-less principal may not use, and where its error lands; and the names they share.
import { encodeRecordBatch } from '../../../src/protocol/record-batch';

export interface Refusal {
  api: string;
  key: number;
  v: number;
  body: () => unknown;
  codes: (res: any) => unknown;
  want: number[];
}

/** The group the test commits offsets in as admin (and the refused principal asks about). */
export const G = 'g';

export const batch = () => encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] });
