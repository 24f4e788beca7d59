// SCRAM's four messages (RFC 5802 section 7) as Kafka's ScramMessages.java reads and writes them:
// only the gs2 header "n" (no channel binding), an optional authzid equal to the user, and
// extensions after the nonce (Kafka's tokenauth=true asks for a delegation token, which minnow has not).

/** Thrown for a message that is not SCRAM's; the server answers it as a failed authentication. */
export class ScramFormatError extends Error {
  override readonly name = 'ScramFormatError';
}

/** `=2C` and `=3D` in a saslname stand for ',' and '=' (RFC 5802 5.1). */
export function decodeSaslName(s: string): string {
  if (/=(?!2C|3D)/.test(s)) throw new ScramFormatError('invalid "=" escape in user name');
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

export function encodeSaslName(s: string): string {
  return s.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

/** RFC 5802's printable: %x21-7E except ','. */
const NONCE = /^[\x21-\x2b\x2d-\x7e]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface ClientFirstMessage {
  /** "n,," or "n,a=NAME,": part of what the client binds in its final message. */
  gs2Header: string;
  /** The authzid, '' when absent. */
  authorizationId: string;
  user: string;
  nonce: string;
  extensions: Map<string, string>;
  /** client-first-message-bare: the part the proofs sign. */
  bare: string;
}

function attributes(parts: string[], what: string): { key: string; value: string }[] {
  return parts.map((p) => {
    const m = /^([A-Za-z])=(.*)$/s.exec(p);
    if (!m) throw new ScramFormatError(`invalid SCRAM ${what}: attribute "${p.slice(0, 20)}" is not x=value`);
    return { key: m[1]!, value: m[2]! };
  });
}

export function parseClientFirst(text: string): ClientFirstMessage {
  const m = /^n,(?:a=([^,]*))?,(.*)$/s.exec(text);
  if (!m) throw new ScramFormatError('invalid SCRAM client first message: only the gs2 header "n" is supported');
  const authorizationId = m[1] !== undefined ? decodeSaslName(m[1]) : '';
  const bare = m[2]!;
  const parts = bare.split(',');
  const attrs = attributes(parts.slice(0, 2), 'client first message');
  if (attrs[0]?.key === 'm') throw new ScramFormatError('SCRAM mandatory extensions (m=) are not supported');
  if (attrs[0]?.key !== 'n' || attrs[1]?.key !== 'r')
    throw new ScramFormatError('invalid SCRAM client first message: expected n=USER,r=NONCE');
  const user = decodeSaslName(attrs[0].value);
  if (user === '') throw new ScramFormatError('invalid SCRAM client first message: empty user name');
  if (!NONCE.test(attrs[1].value)) throw new ScramFormatError('invalid SCRAM client first message: bad nonce');
  // Kafka's extensions are key=value pairs after the nonce ("tokenauth=true").
  const extensions = new Map<string, string>();
  for (const p of parts.slice(2)) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new ScramFormatError(`invalid SCRAM extension "${p.slice(0, 20)}"`);
    extensions.set(p.slice(0, eq), p.slice(eq + 1));
  }
  return {
    gs2Header: `n,${m[1] !== undefined ? `a=${m[1]}` : ''},`,
    authorizationId,
    user,
    nonce: attrs[1].value,
    extensions,
    bare,
  };
}

export function formatClientFirst(user: string, nonce: string, extensions: Record<string, string> = {}): string {
  const ext = Object.entries(extensions).map(([k, v]) => `,${k}=${v}`);
  return `n,,n=${encodeSaslName(user)},r=${nonce}${ext.join('')}`;
}

export interface ServerFirstMessage {
  nonce: string;
  salt: Buffer;
  iterations: number;
}

export function formatServerFirst(m: ServerFirstMessage): string {
  return `r=${m.nonce},s=${m.salt.toString('base64')},i=${m.iterations}`;
}

export function parseServerFirst(text: string): ServerFirstMessage {
  const m = /^r=([^,]+),s=([^,]+),i=([0-9]+)(?:,.*)?$/s.exec(text);
  if (!m) throw new ScramFormatError(`invalid SCRAM server first message: ${text.slice(0, 80)}`);
  return { nonce: m[1]!, salt: Buffer.from(m[2]!, 'base64'), iterations: Number(m[3]) };
}

export interface ClientFinalMessage {
  /** The channel binding attribute, base64 of the gs2 header when there is no binding. */
  channelBinding: string;
  nonce: string;
  proof: Buffer;
  /** client-final-message-without-proof: the part the proofs sign. */
  withoutProof: string;
}

export function parseClientFinal(text: string): ClientFinalMessage {
  const m = /^(c=([^,]*),r=([^,]+)(?:,[^,]*)*),p=([^,]*)$/s.exec(text);
  if (!m) throw new ScramFormatError('invalid SCRAM client final message: expected c=...,r=...,p=...');
  if (!BASE64.test(m[2]!) || !BASE64.test(m[4]!))
    throw new ScramFormatError('invalid SCRAM client final message: bad base64');
  return { withoutProof: m[1]!, channelBinding: m[2]!, nonce: m[3]!, proof: Buffer.from(m[4]!, 'base64') };
}

export function formatServerFinal(serverSignature: Buffer): string {
  return `v=${serverSignature.toString('base64')}`;
}

/** `e=...` is the server's way of saying it failed (RFC 5802 server-error). */
export function parseServerFinal(text: string): { signature?: Buffer; error?: string } {
  if (text.startsWith('e=')) return { error: text.slice(2) };
  const m = /^v=([A-Za-z0-9+/]+={0,2})(?:,.*)?$/s.exec(text);
  if (!m) throw new ScramFormatError(`invalid SCRAM server final message: ${text.slice(0, 80)}`);
  return { signature: Buffer.from(m[1]!, 'base64') };
}
