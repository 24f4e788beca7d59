// A handler threw (the database out of reach, or a bug) or its answer did not encode: Kafka's
// answer for an unexpected error (KafkaApis.handleError), the error in every error field of the
// API's response (error-answers/), rather than closing a connection the client would take for a
// dead broker.
import type { WarningLimiter } from '../logger';
import { StorageError } from '../storage/storage';
import type { RequestContext } from './context';
import { errorAnswer } from './error-answers';
import type { ResponseSlot } from './response-queue';

/** What of its connection the failure answer uses. */
export interface FailingConnection {
  readonly id: number;
  closed(): boolean;
  readonly warnings: WarningLimiter;
  /** Logs why and closes the connection. */
  reject(why: string, err: Error, fields: Record<string, unknown>): void;
}

/**
 * Answers the failed request through `finish` (the request's own way to answer, so quotas and
 * slicing apply), logged once per burst. Closes when no answer is due (Produce acks=0), an answer
 * was already (partly) made, or the error answer itself fails. Never throws.
 */
export function answerHandlerFailure(
  conn: FailingConnection,
  slot: ResponseSlot,
  ctx: RequestContext,
  api: string,
  request: unknown,
  err: unknown,
  finish: (body: unknown) => void | Promise<void>,
): void {
  if (conn.closed()) return;
  const storage = err instanceof StorageError;
  let answer: { body: unknown; code: number } | undefined;
  // An answer already (partly) made cannot be replaced: close.
  if (!slot.done && slot.chunks === null) {
    try {
      answer = errorAnswer(ctx, request, err);
    } catch {
      answer = undefined;
    }
  }
  if (!answer || answer.body === null) {
    conn.reject(`${api} handler failed`, err as Error, { correlationId: ctx.correlationId });
    return;
  }
  const why = storage ? 'storage unavailable: answering with a retriable error' : `${api} handler failed: answering`;
  conn.warnings.log(storage ? 'warn' : 'error', why, {
    connectionId: conn.id,
    api,
    errorCode: answer.code,
    err,
  });
  const failed = (e: unknown) =>
    conn.reject(`${api} error answer failed`, e as Error, { correlationId: ctx.correlationId });
  try {
    finish(answer.body)?.catch(failed); // a large error answer is encoded in slices
  } catch (e) {
    failed(e);
  }
}
