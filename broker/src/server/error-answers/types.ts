// The shape of a per-API error answer (see index.ts).
import type { RequestContext } from '../context';

/** The error to put in every error field of an answer. */
export interface AnswerError {
  code: number;
  /** For the ErrorMessage fields; null where Kafka sends none. */
  message: string | null;
}

/**
 * Builds the whole response of one API for a decoded request, with `e` in every partition / group /
 * top-level error field and the request's keys echoed (Kafka's AbstractRequest.getErrorResponse);
 * null when no answer is due and the connection closes instead.
 */
export type ErrorAnswerBuilder<Req, Res> = (
  req: Req,
  version: number,
  e: AnswerError,
  ctx: RequestContext,
) => Res | null;
