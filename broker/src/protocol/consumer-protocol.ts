// The "consumer" protocol's member metadata and assignment bytes (a version prefix, then the
// ConsumerProtocolSubscription/Assignment schema): decoded for DescribeGroups, OffsetDelete and the CLI.
// From their own modules, not the index: importing a value from the index loads every codec.
import {
  ConsumerProtocolAssignment,
  decodeConsumerProtocolAssignment,
  encodeConsumerProtocolAssignment,
} from './messages/consumer-protocol-assignment';
import {
  ConsumerProtocolSubscription,
  decodeConsumerProtocolSubscription,
  encodeConsumerProtocolSubscription,
} from './messages/consumer-protocol-subscription';
import { Reader } from './reader';
import { Writer } from './writer';

// Newer clients may send versions above the schema's; their extra fields come after the known ones
// (the schema is append-only), so reading as our highest version still works.
const MAX_VERSION = 3;

/** The subscription in `bytes`, or null if they are empty or not a consumer subscription. */
export function consumerSubscription(bytes: Buffer): ConsumerProtocolSubscription | null {
  if (bytes.length < 2) return null;
  try {
    const r = new Reader(bytes);
    const version = r.int16();
    if (version < 0) return null;
    return decodeConsumerProtocolSubscription(r, Math.min(version, MAX_VERSION));
  } catch {
    return null;
  }
}

/** The assignment in `bytes`, or null if they are empty or not a consumer assignment. */
export function consumerAssignment(bytes: Buffer): ConsumerProtocolAssignment | null {
  if (bytes.length < 2) return null;
  try {
    const r = new Reader(bytes);
    const version = r.int16();
    if (version < 0) return null;
    return decodeConsumerProtocolAssignment(r, Math.min(version, MAX_VERSION));
  } catch {
    return null;
  }
}

export function encodeSubscription(sub: ConsumerProtocolSubscription, version = 0): Buffer {
  const w = new Writer();
  w.int16(version);
  encodeConsumerProtocolSubscription(w, version, sub);
  return w.toBuffer();
}

export function encodeAssignment(assignment: ConsumerProtocolAssignment, version = 0): Buffer {
  const w = new Writer();
  w.int16(version);
  encodeConsumerProtocolAssignment(w, version, assignment);
  return w.toBuffer();
}
