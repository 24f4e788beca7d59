// For test files whose tests run at once (it.concurrent) against an in-process broker.
// Jest refuses a first require() while no test function or hook runs (jest-runtime's TestState
// "betweenTests": "You are trying to `require` a file outside of the scope of the test code"), and
// with concurrent tests that is whenever one test has returned while another still drives the
// broker. The broker loads each API's codec and the native compression libraries on first use
// (protocol/messages/registry.ts, protocol/compression.ts): such a first use then throws inside
// the broker, which closes that client's connection ("closing connection: request failed"); seen
// as librdkafka's GroupCoordinator disconnected on every OffsetCommit until its session expired.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { API_SPECS } from '../../src/protocol/messages/registry';
import { compress, CompressionType, decompress, zstdBinding } from '../../src/protocol/compression';
import { Reader } from '../../src/protocol/reader';

/** Loads now every module the broker would load on first use, so that no test loads one later. */
export function loadLazyBrokerModules(): void {
  for (const spec of API_SPECS) {
    // The first call loads the codec; an empty body then fails to decode, which is all right here.
    try {
      spec.decodeRequest(new Reader(Buffer.alloc(0)), spec.minVersion);
    } catch {
      // the codec is loaded all the same
    }
  }
  for (const type of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd])
    decompress(type, compress(type, Buffer.from('minnow')));
  zstdBinding();
}

/**
 * kafkajs requires each request version, codec and SASL mechanism on first use
 * (src/protocol/requests/<api>/index.js): in a test running at once with others, that first use
 * throws the same way, inside kafkajs. Loads all of its source files now (~400, under a second).
 */
export function loadKafkajsModules(): void {
  const src = path.join(path.dirname(require.resolve('kafkajs/package.json')), 'src');
  for (const file of fs.readdirSync(src, { recursive: true }) as string[])
    if (
      file.endsWith('.js') &&
      !file.endsWith('.spec.js') &&
      !file.includes('testHelpers') &&
      !file.includes('fixtures')
    )
      require(path.join(src, file)); // loading is the point
}
