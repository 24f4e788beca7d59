// The certificate the TLS listeners present, renewed without a restart: every
// MINNOW_TLS_RELOAD_INTERVAL_MS the files are read again and, once a change has stayed the same for
// one more check (a renewal writes the certificate and the key one after the other), loaded,
// checked and handed to each TLS server (server.setSecureContext). Connections already open keep
// the certificate they were made with; new ones get the new one. A renewal that does not load
// (unreadable, key not matching, expired) leaves the current certificate in place and is logged
// as an error saying why, once per distinct content.
import * as fs from 'node:fs';
import type * as tls from 'node:tls';
import type { Logger } from '../logger';
import { describeCertificate, isExpired, loadTlsMaterial, materialBytes, TlsFiles, TlsMaterial } from './tls-material';

export type ReloadOutcome = 'unchanged' | 'reloaded' | 'failed';

export class TlsCertificates {
  private current: TlsMaterial;
  private currentBytes: Buffer;
  private readonly servers = new Set<tls.Server>();
  private timer: NodeJS.Timeout | undefined;
  /** Bytes seen changed at the last check, loaded if still the same at the next. */
  private settling: Buffer | undefined;
  /** Bytes of the last renewal that failed: not tried (nor logged) again until they change. */
  private failed: Buffer | undefined;

  /** Loads the files now; throws TlsMaterialError (start-up stops) if they are not usable. */
  constructor(
    private readonly files: TlsFiles,
    private readonly logger: Logger,
  ) {
    this.current = loadTlsMaterial(files);
    this.currentBytes = materialBytes(this.current.raw);
    // Started anyway: refusing would also take down the plaintext listeners, and a renewal is
    // picked up without a restart.
    if (isExpired(this.current.certificate)) {
      logger.error('the TLS certificate has expired: clients refuse it until TLS_CERT_FILE is renewed', {
        certificate: describeCertificate(this.current.certificate),
      });
    }
  }

  get material(): TlsMaterial {
    return this.current;
  }

  /** A TLS server to give renewed certificates to. */
  attach(server: tls.Server): void {
    this.servers.add(server);
  }

  /** Checks the files every `intervalMs` (0: never; a reload is then only by reload()). */
  watch(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.servers.clear();
  }

  /** One periodic check: loads a change once it has stayed the same across two checks. */
  check(): void {
    const bytes = this.readAll();
    if (!bytes || bytes.equals(this.currentBytes) || (this.failed && bytes.equals(this.failed))) {
      this.settling = undefined;
      return;
    }
    if (!this.settling || !this.settling.equals(bytes)) {
      this.settling = bytes;
      return;
    }
    this.settling = undefined;
    this.reload();
  }

  /** Loads the files now (SIGHUP, or a settled change) and, if they are new and good, uses them. */
  reload(): ReloadOutcome {
    let next: TlsMaterial;
    try {
      next = loadTlsMaterial(this.files);
    } catch (err) {
      return this.refuse((err as Error).message);
    }
    const nextBytes = materialBytes(next.raw);
    if (nextBytes.equals(this.currentBytes)) return 'unchanged';
    if (isExpired(next.certificate) && !isExpired(this.current.certificate)) {
      return this.refuse(
        `TLS_CERT_FILE=${this.files.certFile}: the new certificate expired on ${next.certificate.validTo}`,
      );
    }
    try {
      for (const server of this.servers) server.setSecureContext(next.contextOptions);
    } catch (err) {
      // OpenSSL refused what the checks let through: the servers that took it keep it, so put
      // the current one back everywhere rather than serve two certificates.
      for (const server of this.servers) server.setSecureContext(this.current.contextOptions);
      return this.refuse((err as Error).message);
    }
    const previous = this.current;
    this.current = next;
    this.currentBytes = nextBytes;
    this.failed = undefined;
    this.logger.info('TLS certificate reloaded: new connections get the new one', {
      certificate: describeCertificate(next.certificate),
      previous: describeCertificate(previous.certificate),
    });
    return 'reloaded';
  }

  /** A renewal not taken: logged once per content (check() skips the same bytes until they change). */
  private refuse(reason: string): ReloadOutcome {
    this.failed = this.readAll();
    this.logger.error('TLS certificate reload failed; keeping the current certificate', {
      reason,
      current: describeCertificate(this.current.certificate),
    });
    return 'failed';
  }

  /** The files' bytes as materialBytes() joins them (undefined if one cannot be read now: mid-rename, say). */
  private readAll(): Buffer | undefined {
    const read = (f: string | undefined) => (f ? fs.readFileSync(f) : undefined);
    try {
      const f = this.files;
      return materialBytes({
        cert: read(f.certFile)!,
        key: read(f.keyFile)!,
        ca: read(f.caFile),
        passwordFile: read(f.keyPasswordFile),
      });
    } catch {
      return undefined;
    }
  }
}
