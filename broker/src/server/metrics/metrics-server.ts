// The HTTP endpoint of MINNOW_METRICS_LISTENER: GET /metrics answers Prometheus text, anything else
// 404 (405 for another method on /metrics). Its own server on its own port, never a Kafka listener.
// Bounded: a few connections at once, short timeouts, no request body read, and each answer is one
// string whose size is bounded by the metrics' label sets (broker-metrics.ts), so a scraper, slow or
// hostile, holds at most MAX_SCRAPE_CONNECTIONS such strings. It does not keep the process alive
// (unref) and closes with the broker.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../logger';
import type { Endpoint } from '../listeners';

/** Scrapers connected at once; more are dropped on arrival (Prometheus and the CloudWatch agent use one). */
export const MAX_SCRAPE_CONNECTIONS = 4;
/** A scrape must send its request within this, and an idle kept-alive connection closes after KEEP_ALIVE_MS. */
const REQUEST_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_MS = 5_000;
/** Request headers larger than this are refused (431): a GET /metrics needs a few hundred bytes. */
const MAX_HEADER_BYTES = 8192;

export interface MetricsSource {
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsServer {
  /** The bound address (port 0 resolved). */
  host: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on `endpoint`; rejects with an Error naming the address when it cannot bind. */
export async function openMetricsServer(
  endpoint: Endpoint,
  metrics: MetricsSource,
  logger: Logger,
): Promise<MetricsServer> {
  const server = http.createServer(
    {
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (req, res) => answer(req, res, metrics, logger),
  );
  server.maxConnections = MAX_SCRAPE_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `MINNOW_METRICS_LISTENER: cannot listen on ${endpoint.host}:${endpoint.port}: ${err.code ?? err.message}; choose another address or port, or unset it to run without the metrics endpoint`,
          { cause: err },
        ),
      );
    server.once('error', failed);
    server.listen(endpoint.port, endpoint.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (err) => logger.error('metrics endpoint error', { err }));
  server.unref(); // a scrape in progress must not hold a stopping process up
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // kept-alive scrapers would hold close() open until their timeout
      })),
  };
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, metrics: MetricsSource, logger: Logger): void {
  const path = (req.url ?? '').split('?')[0];
  if (path !== '/metrics') return plain(res, 404, 'not found: the metrics are at GET /metrics\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return plain(res, 405, `${req.method} is not allowed: use GET /metrics\n`);
  }
  metrics.render().then(
    (text) => {
      res.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(text) });
      res.end(req.method === 'HEAD' ? undefined : text);
    },
    (err: unknown) => {
      logger.error('metrics scrape failed', { err });
      plain(res, 500, `metrics failed: ${(err as Error).message}\n`);
    },
  );
}

function plain(res: http.ServerResponse, status: number, text: string): void {
  // The request body, if any, is never read: close the connection rather than drain it.
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  res.end(text);
}
