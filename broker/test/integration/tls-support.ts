// What the TLS tests (tls*.test.ts) share: the listener configs, the client certificate's subject
// and principal, raw TLS probes (one ApiVersions, or a connection kept open), bounded waits, and a
// kafkajs produce-then-consume round trip.
import type * as net from 'node:net';
import * as tls from 'node:tls';
import type { Kafka } from 'kafkajs';
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { ListenerConfig } from '../../src/server/listeners';
import { createLogger, Logger } from '../../src/logger';

export const SSL: ListenerConfig = { host: '127.0.0.1', port: 0, securityProtocol: 'SSL' };
export const PLAINTEXT: ListenerConfig = { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' };
/** The client certificate's subject, as openssl takes it, and as Kafka's default principal builder names it. */
export const CLIENT_SUBJECT = '/C=US/O=acme/OU=eng/CN=client';
export const CLIENT_PRINCIPAL = 'User:CN=client,OU=eng,O=acme,C=US';

export type Outcome = { answered: true; fingerprint256: string } | { answered: false; error: string };

/**
 * Connects over TLS, sends ApiVersions v0 and waits (at most 10 s) for its answer or the end of
 * the connection: whether the broker answered a Kafka request, and with which certificate.
 */
export function apiVersionsOverTls(port: number, opts: tls.ConnectionOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    let fingerprint256 = '';
    const socket = tls.connect({ host: '127.0.0.1', port, ...opts });
    const done = (o: Outcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => done({ answered: false, error: 'no answer within 10 s' }), 10_000);
    socket.once('secureConnect', () => {
      fingerprint256 = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, 1, 'tls-test', {}));
    });
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 8 && got.readInt32BE(4) === 1) done({ answered: true, fingerprint256 });
    });
    socket.on('error', (err) => done({ answered: false, error: err.message }));
    socket.on('close', () => done({ answered: false, error: 'closed' }));
  });
}

/** An open TLS connection that can send ApiVersions again and again (the reload test's old connection). */
export async function openTls(port: number, opts: tls.ConnectionOptions) {
  const socket = tls.connect({ host: '127.0.0.1', port, ...opts });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  let correlationId = 100;
  return {
    fingerprint256: socket.getPeerX509Certificate()!.fingerprint256,
    /** Sends ApiVersions and resolves true once answered (false if the connection ends, or after 10 s). */
    ask(): Promise<boolean> {
      const id = ++correlationId;
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish(false), 10_000);
        const onData = (d: Buffer) => {
          if (d.length >= 8 && d.readInt32BE(4) === id) finish(true);
        };
        const onClose = () => finish(false);
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          socket.off('data', onData);
          socket.off('close', onClose);
          resolve(ok);
        };
        socket.on('data', onData);
        socket.once('close', onClose);
        socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, id, 'tls-test', {}));
      });
    },
    close: () => socket.destroy(),
  };
}

/** Resolves once the socket closes; rejects after `ms` (bounded waits, not a timing assertion). */
export function closedWithin(socket: net.Socket, ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve();
    const timer = setTimeout(() => reject(new Error(`${what}: still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A logger that keeps error lines, to see what a failed reload said. */
export function capturingLogger(errors: string[]): Logger {
  return createLogger('error', (line) => void errors.push(line));
}

export async function kafkajsRoundTrip(kafka: Kafka, topic: string, values: string[]): Promise<string[]> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-group` });
  await consumer.connect();
  const seen: string[] = [];
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${seen.length} messages within 20 s`)), 20_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(String(message.value));
        if (seen.length >= values.length) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return seen;
}
