// One request frame: size prefix, request header (v0-v2, as the API version needs) and body. The
// client, the fuzz tool and raw-socket tests all build frames with it.
import { requestHeaderVersion } from './headers';
import { API_SPEC_BY_KEY } from './messages/registry';
import { Writer } from './writer';

/** The frame as the writer's chunks (the size prefix patched into the first), to write without a copy. */
export function encodeRequestFrameChunks(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  clientId: string | null,
  body: unknown,
): Buffer[] {
  const spec = API_SPEC_BY_KEY.get(apiKey);
  if (!spec) throw new Error(`unknown API key ${apiKey}`);
  const w = new Writer(256);
  w.int32(0).int16(apiKey).int16(apiVersion).int32(correlationId);
  const hv = requestHeaderVersion(apiKey, apiVersion);
  if (hv >= 1) w.nullableString(clientId);
  if (hv >= 2) w.uvarint(0);
  spec.encodeRequest(w, apiVersion, body);
  const chunks = w.toChunks();
  chunks[0]!.writeInt32BE(w.length - 4, 0);
  return chunks;
}

/** The frame as one buffer. */
export function encodeRequestFrame(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  clientId: string | null,
  body: unknown,
): Buffer {
  return Buffer.concat(encodeRequestFrameChunks(apiKey, apiVersion, correlationId, clientId, body));
}
