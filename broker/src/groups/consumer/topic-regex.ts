// Regular-expression subscriptions (KIP-848's SubscribedTopicRegex, resolved by the broker). Kafka
// compiles them with RE2/J and a topic matches when the whole name does (Matcher.matches()). minnow
// uses JavaScript's RegExp, anchored at both ends, after translating RE2/J's own syntax:
// a leading `(?i)` (case-insensitive), `\Q...\E` quoting and `(?P<name>...)` groups. RE2/J has no
// lookaround or backreferences; JavaScript does, so they are refused here as RE2/J refuses them
// (INVALID_REGULAR_EXPRESSION). Other inline flags (`(?s)`, `(?m)`, flags mid-pattern) and
// RE2/J's character classes `[[:alpha:]]`, `\pN` without braces are refused too.

export type CompiledRegex = { ok: true; regex: RegExp } | { ok: false; message: string };

export function compileTopicRegex(source: string): CompiledRegex {
  let flags = '';
  let body = source;
  if (body.startsWith('(?i)')) {
    flags = 'i';
    body = body.slice(4);
  }
  body = body.replace(/\\Q([\s\S]*?)(?:\\E|$)/g, (_, quoted: string) =>
    quoted.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'),
  );
  body = body.replace(/\(\?P</g, '(?<');
  const unsupported = /\(\?<?[=!]|\\[1-9]|\\k<|\(\?[a-zA-Z-]+[):]|\[\[:/.exec(body);
  if (unsupported)
    return {
      ok: false,
      message: `SubscribedTopicRegex "${source}" uses "${unsupported[0]}", which RE2/J (Kafka's regex syntax) does not have`,
    };
  try {
    return { ok: true, regex: new RegExp(`^(?:${body})$`, flags) };
  } catch (err) {
    return {
      ok: false,
      message: `SubscribedTopicRegex "${source}" is not a valid regular expression: ${(err as Error).message}`,
    };
  }
}

/**
 * Internal topics match too: Kafka's GroupMetadataManager tests every topic of its metadata image
 * (franz-go's Test848RegexBrokerResolves expects `__consumer_offsets` assigned); client-side regexes
 * skip them by Metadata's isInternal flag.
 */
export function regexMatchesTopic(regex: RegExp, topic: string): boolean {
  return regex.test(topic);
}
