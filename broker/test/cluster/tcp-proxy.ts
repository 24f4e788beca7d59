// A TCP proxy on 127.0.0.1 between one broker and PostgreSQL, so a test can take the database away
// from that broker alone (docs/postgres.md "Failure cases": a broker loses PostgreSQL) while the
// others still reach it. Two ways to lose it:
// - cut(): every connection is reset and new ones are refused at once (a clean network error);
// - blackHole(): connections stay open but every byte is dropped, both ways, and new ones are
//   accepted and never answered: what a lost route looks like on AWS (no RST, no FIN), where a
//   client without timeouts of its own waits forever.
// heal() lets new connections through again; the connections open during the loss are reset then
// (their byte streams lost data, as a real one would have after its retransmissions gave up), or
// left silent forever.
import * as net from 'node:net';

type Mode = 'pass' | 'cut' | 'blackhole';

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Opened or lived through a loss: never forwards again. */
  dead: boolean;
}

export class TcpProxy {
  private mode: Mode = 'pass';
  private readonly pairs = new Set<Pair>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Listens on an ephemeral 127.0.0.1 port and forwards to host:port. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client: net.Socket) => proxy.accept(client, host, port));
    return proxy;
  }

  /** `url` (postgres://user@host:port/db) with its host and port replaced by this proxy's. */
  static async forUrl(url: string): Promise<{ proxy: TcpProxy; url: string }> {
    const u = new URL(url);
    const proxy = await TcpProxy.start(u.hostname, Number(u.port || 5432));
    u.hostname = '127.0.0.1';
    u.port = String(proxy.port);
    return { proxy, url: u.toString() };
  }

  /** Connections currently open through the proxy (both sides up). */
  get open(): number {
    return this.pairs.size;
  }

  cut(): void {
    this.mode = 'cut';
    for (const p of [...this.pairs]) this.close(p);
  }

  blackHole(): void {
    this.mode = 'blackhole';
    for (const p of this.pairs) p.dead = true;
  }

  /**
   * New connections pass again. The ones that lived through the loss are reset, or with 'silent'
   * stay black holes for good: lost without a word to the broker (the database ended them, and
   * its RST was dropped too), which only the broker's own timeouts can find out.
   */
  heal(lost: 'reset' | 'silent' = 'reset'): void {
    this.mode = 'pass';
    if (lost === 'reset') for (const p of [...this.pairs]) if (p.dead) this.close(p);
  }

  async stop(): Promise<void> {
    this.mode = 'cut';
    for (const p of [...this.pairs]) this.close(p);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, host: string, port: number): void {
    client.on('error', () => {});
    if (this.mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: undefined, dead: this.mode === 'blackhole' };
    this.pairs.add(pair);
    client.on('close', () => this.close(pair));
    if (pair.dead) {
      client.on('data', () => {}); // swallowed: the database never hears of it
      return;
    }
    const upstream = net.connect({ host, port });
    pair.upstream = upstream;
    upstream.on('error', () => {});
    // The database ending a session during a black hole (idle_in_transaction_session_timeout)
    // must not reach the broker either: the RST would be lost too.
    upstream.on('close', () => (pair.dead ? undefined : this.close(pair)));
    client.on('data', (chunk) => {
      if (!pair.dead) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.dead) client.write(chunk);
    });
  }

  private close(p: Pair): void {
    if (!this.pairs.delete(p)) return;
    // Resets (RST), not FIN: the peer learns at once, as from a network error.
    p.client.resetAndDestroy();
    p.upstream?.resetAndDestroy();
  }
}
