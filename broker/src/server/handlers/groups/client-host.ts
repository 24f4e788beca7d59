// The member's address for DescribeGroups ("/127.0.0.1" in Kafka). RequestContext does not carry the
// remote address yet; a context that has `clientHost` (or `remoteAddress`) is used when it does.
import type { RequestContext } from '../../context';

export function clientHostOf(ctx: RequestContext): string {
  const c = ctx as RequestContext & { clientHost?: string; remoteAddress?: string };
  const host = c.clientHost ?? c.remoteAddress;
  return host ? (host.startsWith('/') ? host : `/${host}`) : '';
}
