// One server per listener (listeners.ts). Each accepted socket is handed on with the listener it
// came in on, so its connection's session knows the security protocol and the address to advertise.
import * as net from 'node:net';
import { describeListeners, ResolvedListener } from './listeners';

export interface ListenerServers {
  /** Stops accepting on every listener; resolves when all servers are closed. */
  close(): Promise<void>;
}

/**
 * Binds every listener (in order); a port of 0 is replaced by the bound one, in the listener and in
 * its advertised address when that was 0 too. If one cannot bind, the ones already bound are
 * closed and the error says which listener failed.
 */
export async function openListenerServers(
  listeners: readonly ResolvedListener[],
  onSocket: (socket: net.Socket, listener: ResolvedListener) => void,
): Promise<ListenerServers> {
  const servers: net.Server[] = [];
  const closeAll = () =>
    Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => undefined);
  try {
    for (const listener of listeners) {
      const server = createServer(listener, (socket) => onSocket(socket, listener));
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listener.port, listener.host, () => {
          server.off('error', reject);
          resolve();
        });
      }).catch((err: NodeJS.ErrnoException) => {
        servers.pop();
        err.message = `listener ${describeListeners([listener])}: ${err.message}`;
        throw err;
      });
      const bound = (server.address() as net.AddressInfo).port;
      if (listener.advertised.port === 0) listener.advertised.port = bound;
      listener.port = bound;
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { close: closeAll };
}

function createServer(listener: ResolvedListener, onSocket: (socket: net.Socket) => void): net.Server {
  switch (listener.securityProtocol) {
    case 'PLAINTEXT':
    case 'SASL_PLAINTEXT':
      return net.createServer(onSocket);
    case 'SSL':
    case 'SASL_SSL':
      throw new Error(
        `listener ${describeListeners([listener])}: TLS listeners (tls://, sasl+tls://) are not built yet; use tcp://`,
      );
  }
}
