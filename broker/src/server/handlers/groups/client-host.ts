// The member's address for DescribeGroups: "/127.0.0.1", as Kafka prints it.
import type { RequestContext } from '../../context';

export function clientHostOf(ctx: RequestContext): string {
  return ctx.clientHost;
}
