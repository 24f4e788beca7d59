import * as http from 'node:http';
import * as net from 'node:net';
import { silentLogger } from '../../../src/logger';
import { MAX_SCRAPE_CONNECTIONS, MetricsServer, openMetricsServer } from '../../../src/server/metrics/metrics-server';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(port: number, method: string, path: string, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 5 s')));
    req.on('error', reject);
    req.end();
  });
}

describe('metrics HTTP endpoint', () => {
  let server: MetricsServer;
  let scrapes = 0;
  const source = {
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    render: async () => {
      scrapes++;
      return '# TYPE minnow_topics gauge\nminnow_topics 3\n';
    },
  };
  beforeEach(async () => {
    scrapes = 0;
    server = await openMetricsServer({ host: '127.0.0.1', port: 0 }, source, silentLogger);
  });
  afterEach(() => server.close());

  it('answers GET /metrics with Prometheus text', async () => {
    const a = await request(server.port, 'GET', '/metrics');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(a.body).toBe('# TYPE minnow_topics gauge\nminnow_topics 3\n');
    expect((await request(server.port, 'GET', '/metrics?name[]=x')).status).toBe(200); // query ignored
    const head = await request(server.port, 'HEAD', '/metrics');
    expect([head.status, head.body]).toEqual([200, '']);
  });

  it('answers 404 elsewhere and 405 to other methods, without rendering', async () => {
    for (const p of ['/', '/metric', '/metrics/', '/favicon.ico'])
      expect((await request(server.port, 'GET', p)).status).toBe(404);
    const post = await request(server.port, 'POST', '/metrics');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(scrapes).toBe(0);
  });

  it('answers 500 with the reason when rendering fails', async () => {
    const failing = await openMetricsServer(
      { host: '127.0.0.1', port: 0 },
      { contentType: 'text/plain', render: () => Promise.reject(new Error('database is locked')) },
      silentLogger,
    );
    try {
      const a = await request(failing.port, 'GET', '/metrics');
      expect(a.status).toBe(500);
      expect(a.body).toContain('database is locked');
    } finally {
      await failing.close();
    }
  });

  it('closes promptly although a scraper keeps its connection alive', async () => {
    const agent = new http.Agent({ keepAlive: true });
    try {
      expect((await request(server.port, 'GET', '/metrics', agent)).status).toBe(200);
      // Without closing the idle kept-alive connection, close() would wait for its 5 s timeout;
      // jest's 5 s test timeout fails this test then.
      await server.close();
      await expect(request(server.port, 'GET', '/metrics')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      agent.destroy();
    }
  });

  it(`holds at most ${MAX_SCRAPE_CONNECTIONS} connections: more are dropped on arrival`, async () => {
    const sockets = await Promise.all(
      Array.from(
        { length: MAX_SCRAPE_CONNECTIONS + 2 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const s = net.connect(server.port, '127.0.0.1', () => resolve(s));
            s.on('error', () => {}); // the dropped ones may see ECONNRESET
            setTimeout(() => reject(new Error('no connect in 5 s')), 5000).unref();
          }),
      ),
    );
    try {
      // A dropped socket is closed by the server: wait (bounded) for the closes to arrive.
      const closed = await Promise.all(
        sockets.map(
          (s) =>
            new Promise<boolean>((resolve) => {
              if (s.destroyed) return resolve(true);
              const t = setTimeout(() => resolve(false), 1000);
              s.once('close', () => {
                clearTimeout(t);
                resolve(true);
              });
            }),
        ),
      );
      expect(closed.filter((c) => c)).toHaveLength(2);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  it('refuses to start on a port in use, saying which setting and address', async () => {
    await expect(openMetricsServer({ host: '127.0.0.1', port: server.port }, source, silentLogger)).rejects.toThrow(
      `MINNOW_METRICS_LISTENER: cannot listen on 127.0.0.1:${server.port}: EADDRINUSE`,
    );
  });
});
