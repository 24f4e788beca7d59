// --dump-frames (MINNOW_DUMP_FRAMES): every request frame written to a file, to replay or
// inspect what a client sent.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The request frame (without its size prefix) as hex, named api-request-vN-cCONNECTION-CORRELATION.hex. */
export function dumpRequestFrame(
  dir: string,
  api: string,
  apiVersion: number,
  connectionId: number,
  correlationId: number,
  frame: Buffer,
): void {
  fs.mkdirSync(dir, { recursive: true });
  const name = `${api.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}-request-v${apiVersion}-c${connectionId}-${correlationId}.hex`;
  fs.writeFileSync(path.join(dir, name), frame.toString('hex') + '\n');
}
