/**
 * The record-batch codecs (attributes bits 0-2; protocol guide "Record Batch"). The broker stores
 * batches as received, so it decompresses only to validate or inspect. Decompression takes an
 * output limit: a few hundred KiB of gzip or zstd can claim gigabytes, and the broker runs in 1 GiB.
 */
import * as zlib from 'node:zlib';
import type * as Lz4 from 'lz4-napi';
import type * as Snappy from 'snappy';
import type * as Zstd from 'zstd-napi';
import type * as ZstdBinding from 'zstd-napi/binding';
import { DecodeError, EncodeError } from './errors';

// The native codecs load on first use: the broker stores batches as produced and rarely
// decompresses, and loading all three up front cost 14 MB of resident memory at idle.
let lz4Module: typeof Lz4 | undefined;
let snappyModule: typeof Snappy | undefined;
let zstdModule: typeof Zstd | undefined;
let zstdBindingModule: typeof ZstdBinding | undefined;
/* eslint-disable @typescript-eslint/no-require-imports -- native codecs load on first use only */
export const lz4 = () => (lz4Module ??= require('lz4-napi') as typeof Lz4);
export const snappy = () => (snappyModule ??= require('snappy') as typeof Snappy);
const zstd = () => (zstdModule ??= require('zstd-napi') as typeof Zstd);
export const zstdBinding = () => (zstdBindingModule ??= require('zstd-napi/binding') as typeof ZstdBinding);
/* eslint-enable @typescript-eslint/no-require-imports */

export const CompressionType = { None: 0, Gzip: 1, Snappy: 2, Lz4: 3, Zstd: 4 } as const;
export type CompressionType = (typeof CompressionType)[keyof typeof CompressionType];

/** Default output limit of `decompress`. Kafka's own max.message.bytes default is 1 MiB. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

/** The data may be well-formed, but it decompresses to more than the caller's limit. */
export class DecompressionLimitError extends DecodeError {}

export function compress(type: CompressionType, data: Buffer): Buffer {
  switch (type) {
    case CompressionType.None:
      return data;
    case CompressionType.Gzip:
      return zlib.gzipSync(data);
    case CompressionType.Snappy:
      return xerialCompress(data);
    case CompressionType.Lz4:
      // LZ4 frame format with the header checksum over FLG..BD only, as fixed for magic >= 1 by
      // KIP-57; lz4_flex writes independent blocks, which Java's KafkaLZ4BlockInputStream requires.
      return lz4().compressFrameSync(data);
    case CompressionType.Zstd:
      return zstd().compress(data);
    default:
      throw new EncodeError(`unknown compression type ${type as number}, expected 0-4`);
  }
}

/** Decompresses `data`; throws DecodeError if it is malformed or would exceed `maxBytes`. */
export function decompress(type: number, data: Buffer, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  switch (type) {
    case CompressionType.None:
      return data; // nothing is allocated, so no limit applies
    case CompressionType.Gzip:
      return gunzip(data, maxBytes);
    case CompressionType.Snappy:
      return snappyDecompress(data, maxBytes);
    case CompressionType.Lz4:
      return lz4Decompress(data, maxBytes);
    case CompressionType.Zstd:
      return zstdDecompress(data, maxBytes);
    default:
      throw new DecodeError(`unknown compression type ${type} in batch attributes, expected 0-4`);
  }
}

/**
 * What `data` says it inflates to, as an upper bound `decompress` holds it to (lz4: its blocks'
 * bound; snappy: each block's stated length; zstd: the frames' content sizes; gzip: the trailer's
 * ISIZE, which a lying stream exceeds and then fails at); undefined when it does not say (zstd
 * without content sizes) or is malformed (decompress then says how). Reads headers only.
 */
export function statedSize(type: number, data: Buffer): number | undefined {
  try {
    switch (type) {
      case CompressionType.Gzip:
        return data.length >= 18 ? data.readUInt32LE(data.length - 4) : undefined;
      case CompressionType.Snappy: {
        return isXerialHeader(data, 0) ? xerialStatedSize(data) : rawSnappyLength(data);
      }
      case CompressionType.Lz4:
        return lz4Frame(data, Infinity).bound;
      case CompressionType.Zstd:
        return zstdContentSize(data) ?? undefined;
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

export function checkSize(size: number, maxBytes: number, what: string): number {
  if (size > maxBytes) {
    throw new DecompressionLimitError(
      `${what} data of ${size} bytes exceeds the decompression limit of ${maxBytes} bytes`,
    );
  }
  return size;
}

/** Runs a native decoder, turning its errors (plain Error) into DecodeError. */
export function native<T>(codec: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    throw new DecodeError(`malformed ${codec} data: ${(err as Error).message}`, { cause: err });
  }
}

// --- gzip -------------------------------------------------------------------------------------

function gunzip(data: Buffer, maxBytes: number): Buffer {
  try {
    // maxOutputLength stops inflating once the output would exceed it.
    return zlib.gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new DecompressionLimitError(`gzip data exceeds the decompression limit of ${maxBytes} bytes`, {
        cause: err,
      });
    }
    throw new DecodeError(`malformed gzip data: ${(err as Error).message}`, { cause: err });
  }
}

// --- snappy -----------------------------------------------------------------------------------
// The Java client writes snappy-java's SnappyOutputStream ("xerial") framing, not raw snappy and
// not the official framing format: a 16-byte header, then [int32 length][raw snappy block]*, each
// block holding at most 32 KiB of input. librdkafka writes raw snappy and reads both; so do we.

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]); // \x82SNAPPY\0
export const XERIAL_HEADER_SIZE = 16; // magic, int32 version = 1, int32 minimum compatible version = 1
const XERIAL_BLOCK_SIZE = 32 * 1024;

export function isXerialHeader(data: Buffer, at: number): boolean {
  return data.length - at >= XERIAL_HEADER_SIZE && data.compare(XERIAL_MAGIC, 0, 8, at, at + 8) === 0;
}

function xerialCompress(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.alloc(XERIAL_HEADER_SIZE)];
  XERIAL_MAGIC.copy(parts[0]!);
  parts[0]!.writeInt32BE(1, 8);
  parts[0]!.writeInt32BE(1, 12);
  for (let at = 0; at < data.length; at += XERIAL_BLOCK_SIZE) {
    const block = snappy().compressSync(data.subarray(at, at + XERIAL_BLOCK_SIZE));
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length);
    parts.push(len, block);
  }
  return Buffer.concat(parts);
}

/** Raw snappy starts with its uncompressed length as a uvarint: check it before allocating. */
export function rawSnappyLength(block: Buffer): number {
  let value = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const b = block[i]!;
    value += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return value;
  }
  throw new DecodeError('malformed snappy data: bad uncompressed-length preamble');
}

/** snappy's decode options (an external buffer; BENCHMARKS.md "Compressed produce beside Kafka" on copyOutputData). */
export const SNAPPY_DECODE = { asBuffer: true } as const;

function rawSnappy(block: Buffer, maxBytes: number): Buffer {
  checkSize(rawSnappyLength(block), maxBytes, 'snappy');
  return native('snappy', () => snappy().uncompressSync(block, SNAPPY_DECODE) as Buffer);
}

function snappyDecompress(data: Buffer, maxBytes: number): Buffer {
  if (!isXerialHeader(data, 0)) return rawSnappy(data, maxBytes);
  const blocks: Buffer[] = [];
  let total = 0;
  for (const compressed of xerialBlocks(data)) {
    const block = rawSnappy(compressed, maxBytes - total);
    total += block.length;
    blocks.push(block);
  }
  return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks, total);
}

/** What xerial-framed snappy states it inflates to: its blocks' preambles summed (DecodeError if malformed). */
export function xerialStatedSize(data: Buffer): number {
  let total = 0;
  for (const block of xerialBlocks(data)) total += rawSnappyLength(block);
  return total;
}

/** The raw snappy blocks of xerial-framed data, checked against the data's length. */
export function* xerialBlocks(data: Buffer): Generator<Buffer> {
  let at = 0;
  while (at < data.length) {
    // snappy-java also accepts concatenated streams, each with its own header.
    if (isXerialHeader(data, at)) {
      at += XERIAL_HEADER_SIZE;
      continue;
    }
    if (data.length - at < 4) throw new DecodeError(`truncated xerial snappy block length at offset ${at}`);
    const len = data.readInt32BE(at);
    at += 4;
    if (len < 0 || len > data.length - at) {
      throw new DecodeError(
        `xerial snappy block of ${len} bytes at offset ${at} exceeds the ${data.length - at} bytes left`,
      );
    }
    yield data.subarray(at, at + len);
    at += len;
  }
}

// --- lz4 --------------------------------------------------------------------------------------
// lz4-napi decodes a whole frame with no output limit, so we first walk the frame's block headers
// (https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md) and bound the output: a block
// decodes to at most the frame's maximum block size, and LZ4 cannot expand a byte beyond 255.
// For encoders that fill their blocks (Java, librdkafka, lz4-napi) the bound exceeds the real
// size by less than one block, so only data that close to the limit is refused.

const LZ4_MAGIC = 0x184d2204;
const LZ4_MAX_EXPANSION = 255;

/** What lz4Frame() found: the output bound, and the blocks when the block API can decode them. */
export interface Lz4Frame {
  bound: number;
  maxBlockSize: number;
  /** Each block's data (offset and length in the frame) and whether it is stored uncompressed. */
  blocks: { at: number; size: number; stored: boolean }[];
  /** Independent blocks and no checksums: the block decoder gives what the frame decoder would. */
  plain: boolean;
}

export function lz4Frame(data: Buffer, maxBytes: number): Lz4Frame {
  let bound = 0;
  let at = 0;
  const need = (n: number, what: string): number => {
    if (data.length - at < n) throw new DecodeError(`truncated lz4 frame: ${what} at offset ${at}`);
    at += n;
    return at - n;
  };
  if (data.readUInt32LE(need(4, 'magic')) !== LZ4_MAGIC) throw new DecodeError('bad lz4 frame magic');
  const flg = data[need(1, 'FLG')]!;
  const bd = data[need(1, 'BD')]!;
  if (flg >> 6 !== 1 || (flg & 0x02) !== 0 || (bd & 0x8f) !== 0 || bd >> 4 < 4) {
    throw new DecodeError(`unsupported lz4 frame descriptor FLG=0x${flg.toString(16)} BD=0x${bd.toString(16)}`);
  }
  const maxBlockSize = 1 << (2 * (bd >> 4) + 8); // 4 → 64 KiB, 5 → 256 KiB, 6 → 1 MiB, 7 → 4 MiB
  if (flg & 0x08) {
    // The decoder may reserve the declared content size up front.
    const p = need(8, 'content size');
    checkSize(data.readUInt32LE(p) + data.readUInt32LE(p + 4) * 2 ** 32, maxBytes, 'lz4');
  }
  if (flg & 0x01) need(4, 'dictionary id');
  need(1, 'header checksum');
  const blockChecksumSize = flg & 0x10 ? 4 : 0;
  const blocks: Lz4Frame['blocks'] = [];
  for (;;) {
    const word = data.readUInt32LE(need(4, 'block size'));
    if (word === 0) break; // end mark
    const size = word & 0x7fffffff;
    if (size > maxBlockSize) throw new DecodeError(`lz4 block of ${size} bytes exceeds the frame's ${maxBlockSize}`);
    // The high bit marks a block stored uncompressed.
    const stored = word >>> 31 === 1;
    blocks.push({ at: need(size + blockChecksumSize, 'block data'), size, stored });
    bound += stored ? size : Math.min(maxBlockSize, size * LZ4_MAX_EXPANSION);
  }
  if (flg & 0x04) need(4, 'content checksum');
  // lz4-napi would silently drop a second frame; Kafka writers emit exactly one.
  if (at !== data.length) throw new DecodeError(`${data.length - at} bytes after the lz4 frame`);
  // FLG bit 5: blocks independent (Java's KafkaLZ4BlockOutputStream, librdkafka, lz4-napi write them so).
  return { bound, maxBlockSize, blocks, plain: (flg & 0x20) !== 0 && (flg & 0x14) === 0 };
}

/** [uint32 LE output limit][block]: what lz4-napi's block decoder reads; reused between calls. */
let lz4Scratch = Buffer.alloc(0);

/**
 * One block of a `plain` frame, with lz4-napi's block API: 4-6x the frame API's throughput here
 * (issue 33: ~220 MB/s against ~1-1.5 GB/s for 16-256 KiB batches of 1 KiB records). Its output is
 * limited as lz4Frame's bound counts it. Throws the codec's Error on malformed data.
 */
export function lz4DecodeBlock(data: Buffer, frame: Lz4Frame, b: Lz4Frame['blocks'][number]): Buffer {
  if (b.stored) return data.subarray(b.at, b.at + b.size);
  if (lz4Scratch.length < b.size + 4) lz4Scratch = Buffer.allocUnsafe(Math.max(b.size + 4, 64 * 1024 + 4));
  lz4Scratch.writeUInt32LE(Math.min(frame.maxBlockSize, b.size * LZ4_MAX_EXPANSION), 0);
  data.copy(lz4Scratch, 4, b.at, b.at + b.size);
  return lz4().uncompressSync(lz4Scratch.subarray(0, b.size + 4));
}

function lz4DecodeBlocks(data: Buffer, frame: Lz4Frame): Buffer {
  const out = frame.blocks.map((b) => lz4DecodeBlock(data, frame, b));
  return out.length === 1 ? out[0]! : Buffer.concat(out);
}

function lz4Decompress(data: Buffer, maxBytes: number): Buffer {
  const frame = lz4Frame(data, maxBytes);
  checkSize(frame.bound, maxBytes, 'lz4');
  return native('lz4', () => (frame.plain ? lz4DecodeBlocks(data, frame) : lz4().decompressFrameSync(data)));
}

// --- zstd -------------------------------------------------------------------------------------
// zstd-napi's one-shot decompress allocates whatever the frame header claims. We use its binding:
// one-shot only when every frame declares a content size within the limit, else streaming in
// chunks, stopping at the limit. windowLogMax caps the decoder's window (its other allocation).

let zstdContext: InstanceType<typeof ZstdBinding.DCtx> | undefined;

/**
 * The loop's zstd decoder, made once (callers on the loop are synchronous, so one is enough), reset
 * and held to the window `maxBytes` allows: every use starts from the same state, whatever the last set.
 */
export function zstdDctx(maxBytes: number): InstanceType<typeof ZstdBinding.DCtx> {
  const dctx = (zstdContext ??= new (zstdBinding().DCtx)());
  dctx.reset(zstdBinding().ResetDirective.sessionAndParameters);
  dctx.setParameter(zstdBinding().DParameter.windowLogMax, zstdWindowLogMax(maxBytes));
  return dctx;
}

/**
 * At least 2^23 (8 MiB): Java's zstd-jni picks windows up to that at common levels without
 * declaring the content size, so a lower cap would reject small batches it legitimately wrote.
 */
export function zstdWindowLogMax(maxBytes: number): number {
  return Math.min(27, Math.max(23, Math.ceil(Math.log2(Math.max(1, maxBytes)))));
}

/** The frames' summed content size; null when a frame does not state it. Throws on a malformed frame. */
export function zstdContentSize(data: Buffer): number | null {
  let total = 0;
  for (let frame = data; frame.length > 0; frame = frame.subarray(zstdBinding().findFrameCompressedSize(frame))) {
    const size = zstdBinding().getFrameContentSize(frame);
    if (size === null) return null;
    total += size;
  }
  return total;
}

function zstdDecompress(data: Buffer, maxBytes: number): Buffer {
  return native('zstd', () => {
    const dctx = zstdDctx(maxBytes);
    const known = zstdContentSize(data);
    if (known !== null) {
      const out = Buffer.allocUnsafe(checkSize(known, maxBytes, 'zstd'));
      const n = dctx.decompress(out, data);
      if (n !== known) throw new DecodeError(`zstd frame declared ${known} bytes but held ${n}`);
      return out;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let src = data;
    for (;;) {
      const dst = Buffer.allocUnsafe(zstdBinding().dStreamOutSize());
      const [pending, produced, consumed] = dctx.decompressStream(dst, src);
      total += produced;
      checkSize(total, maxBytes, 'zstd');
      if (produced > 0) chunks.push(dst.subarray(0, produced));
      src = src.subarray(consumed);
      if (src.length === 0 && produced < dst.length) {
        if (pending !== 0) throw new DecodeError('truncated zstd frame');
        return Buffer.concat(chunks, total);
      }
      if (produced === 0 && consumed === 0) throw new DecodeError('zstd decoder made no progress');
    }
  });
}
