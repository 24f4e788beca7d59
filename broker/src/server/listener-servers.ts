// One server per listener (listeners.ts). Each accepted socket is handed on with the listener it
// came in on, so its connection's session knows the security protocol and the address to advertise.
// A TLS listener (tls://, sasl+tls://) counts the TCP connection against the connection limits
// when it arrives, then runs the TLS handshake (node:tls) and hands on the decrypted socket, with
// the client certificate's principal on an SSL listener (mTLS).
import * as net from 'node:net';
import * as tls from 'node:tls';
import { describeListeners, ResolvedListener } from './listeners';
import type { KafkaPrincipal } from './session';
import type { TlsCertificates } from './tls-certificates';
import { rfc2253Subject, TlsClientAuth } from './tls-material';

export interface ListenerServers {
  /** Stops accepting on every listener (and drops TLS handshakes in progress); resolves when all servers are closed. */
  close(): Promise<void>;
}

export interface ListenerHooks {
  /** A TCP connection arrived: count it against the connection limits (false: it was closed). */
  admit(socket: net.Socket): boolean;
  /** The connection is ready for Kafka frames (on TLS: handshake done), with its mTLS principal if any. */
  open(socket: net.Socket, listener: ResolvedListener, principal: KafkaPrincipal | undefined): void;
  /** A client that failed its TLS handshake (rate-limited by the caller: a scanner makes many). */
  handshakeFailed(fields: Record<string, unknown>): void;
}

export interface TlsSetup {
  certificates: TlsCertificates;
  clientAuth: TlsClientAuth;
  /** A client that has not finished its handshake by then is disconnected (its slot freed). */
  handshakeTimeoutMs: number;
}

/**
 * Binds every listener (in order); a port of 0 is replaced by the bound one, in the listener and in
 * its advertised address when that was 0 too. If one cannot bind, the ones already bound are
 * closed and the error says which listener failed.
 */
export async function openListenerServers(
  listeners: readonly ResolvedListener[],
  hooks: ListenerHooks,
  tlsSetup?: TlsSetup,
): Promise<ListenerServers> {
  const servers: { server: net.Server; dropPending: () => void }[] = [];
  const closeAll = () =>
    Promise.all(
      servers.map(
        ({ server, dropPending }) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            dropPending();
          }),
      ),
    ).then(() => undefined);
  try {
    for (const listener of listeners) {
      const entry = createServer(listener, hooks, tlsSetup);
      const { server } = entry;
      servers.push(entry);
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

function createServer(
  listener: ResolvedListener,
  hooks: ListenerHooks,
  tlsSetup: TlsSetup | undefined,
): { server: net.Server; dropPending: () => void } {
  switch (listener.securityProtocol) {
    case 'PLAINTEXT':
    case 'SASL_PLAINTEXT':
      return {
        server: net.createServer((socket) => {
          if (hooks.admit(socket)) hooks.open(socket, listener, undefined);
        }),
        dropPending: () => {},
      };
    case 'SSL':
    case 'SASL_SSL':
      if (!tlsSetup) {
        throw new Error(
          `listener ${describeListeners([listener])}: a TLS listener needs TLS_CERT_FILE and TLS_KEY_FILE (PEM)`,
        );
      }
      return createTlsServer(listener, hooks, tlsSetup);
  }
}

/**
 * A plain TCP server whose admitted sockets are handed to a tls.Server that never listens itself
 * (node documents injecting connections with its 'connection' event): so the TCP connection counts
 * against MAX_CONNECTIONS from its first byte, not only once its handshake is done.
 */
function createTlsServer(
  listener: ResolvedListener,
  hooks: ListenerHooks,
  { certificates, clientAuth, handshakeTimeoutMs }: TlsSetup,
): { server: net.Server; dropPending: () => void } {
  const tlsServer = tls.createServer({
    ...certificates.material.contextOptions,
    // Kafka's ssl.client.auth: requested asks for a certificate and accepts none; required refuses none.
    requestCert: clientAuth !== 'none',
    rejectUnauthorized: clientAuth === 'required',
    handshakeTimeout: handshakeTimeoutMs,
  });
  certificates.attach(tlsServer);
  /** TCP connections whose handshake is not done, by remote address and port. */
  const handshaking = new Map<string, net.Socket>();
  const keyOf = (s: net.Socket) => `${s.remoteAddress}|${s.remotePort}`;

  tlsServer.on('secureConnection', (socket: tls.TLSSocket) => {
    handshaking.delete(keyOf(socket));
    // Kafka refuses renegotiation (SslTransportLayer); a client asking for it is disconnected:
    // node only emits the error on the socket, as it does for other TLS errors after the handshake.
    socket.disableRenegotiation();
    socket.on('error', () => socket.destroy());
    const peer = clientAuth !== 'none' ? socket.getPeerX509Certificate() : undefined;
    if (peer && !socket.authorized) {
      // requested: a certificate that does not chain to TLS_CA_FILE fails the handshake in Kafka
      // (the JSSE trust manager refuses it); only no certificate at all is let through.
      hooks.handshakeFailed({
        listener: listener.name,
        remote: socket.remoteAddress,
        reason: `client certificate not trusted (${socket.authorizationError}): not issued by a CA in TLS_CA_FILE`,
      });
      socket.destroy();
      return;
    }
    // On SASL_SSL the SASL exchange says who the client is, as Kafka's principal builder does.
    const principal =
      peer && listener.securityProtocol === 'SSL' ? { principalType: 'User', name: rfc2253Subject(peer) } : undefined;
    hooks.open(socket, listener, principal);
  });
  tlsServer.on('tlsClientError', (err: NodeJS.ErrnoException, socket: tls.TLSSocket) => {
    hooks.handshakeFailed({
      listener: listener.name,
      remote: socket.remoteAddress,
      reason:
        err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT'
          ? `handshake not finished within ${handshakeTimeoutMs} ms`
          : /wrong version number|http request|unknown protocol/i.test(err.message)
            ? `not a TLS client (a plaintext client on a TLS listener? give it security.protocol=SSL): ${err.message}`
            : err.message,
    });
    // Node leaves the socket open after a handshake timeout once someone listens for this event.
    socket.destroy();
  });

  const server = net.createServer((socket) => {
    if (!hooks.admit(socket)) return;
    const key = keyOf(socket);
    handshaking.set(key, socket);
    socket.once('close', () => {
      if (handshaking.get(key) === socket) handshaking.delete(key);
    });
    tlsServer.emit('connection', socket);
  });
  return {
    server,
    dropPending: () => {
      for (const socket of handshaking.values()) socket.destroy();
      handshaking.clear();
    },
  };
}
