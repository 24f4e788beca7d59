// share.auto.offset.reset (KIP-932; by_duration from KIP-1106): where a share-partition a group
// reads for the first time starts. `latest` and `earliest` as a consumer's auto.offset.reset;
// `by_duration:<ISO-8601 duration>` at the first record whose timestamp is at or after now minus
// the duration (the end of the log when there is none), as ListOffsets by timestamp finds it.
// Kafka parses the value case-insensitively and the duration with java.time.Duration.parse
// (PnDTnHnMn.nS; weeks, months and years are not part of that format), refusing a negative one.

export type ShareAutoOffsetReset =
  { kind: 'latest' } | { kind: 'earliest' } | { kind: 'by_duration'; durationMs: number };

const BY_DURATION = 'by_duration:';

// java.time.Duration.parse's pattern: an optional sign, P, days, then T with hours, minutes and
// seconds (a fraction of up to 9 digits, '.' or ','), each component optionally signed.
const JAVA_DURATION =
  /^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$/i;

/**
 * Milliseconds of a java.time.Duration text, or undefined when Duration.parse would refuse it
 * (no component, a bare T). Sub-millisecond digits are dropped.
 */
export function javaDurationMs(text: string): number | undefined {
  const m = JAVA_DURATION.exec(text);
  if (!m) return undefined;
  const [, sign, days, t, hours, minutes, seconds, fraction] = m;
  if (days === undefined && t === undefined) return undefined;
  if (t !== undefined && hours === undefined && minutes === undefined && seconds === undefined) return undefined;
  const n = (v: string | undefined) => (v === undefined ? 0 : Number(v));
  const secondsSign = seconds?.startsWith('-') ? -1 : 1;
  const fractionMs = fraction ? secondsSign * Number(fraction.padEnd(9, '0').slice(0, 3)) : 0;
  const ms = n(days) * 86_400_000 + n(hours) * 3_600_000 + n(minutes) * 60_000 + n(seconds) * 1000 + fractionMs;
  return sign === '-' ? -ms : ms;
}

/** The parsed setting, or the message Kafka's validator gives for a value it refuses. */
export function parseShareAutoOffsetReset(value: string): ShareAutoOffsetReset | { error: string } {
  const v = value.toLowerCase();
  if (v === 'latest' || v === 'earliest') return { kind: v };
  if (v.startsWith(BY_DURATION)) {
    const text = value.slice(BY_DURATION.length);
    const durationMs = javaDurationMs(text);
    if (durationMs === undefined)
      return {
        error: `Invalid value ${value} for configuration share.auto.offset.reset: Unable to parse duration string ${text}`,
      };
    if (durationMs < 0)
      return {
        error: `Invalid value ${value} for configuration share.auto.offset.reset: Negative duration is not supported`,
      };
    return { kind: 'by_duration', durationMs };
  }
  return {
    error: `Invalid value ${value} for configuration share.auto.offset.reset: String must be one of (case insensitive): latest, earliest, by_duration:PnDTnHnMn.nS`,
  };
}
