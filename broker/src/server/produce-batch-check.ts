// What validating one partition's records of a produce answers (produce-validation.ts): the valid
// batch, or the error code, message and record errors Kafka would answer.
import { ErrorCode } from '../protocol/error-codes';
import type { RecordBatchHeader } from '../protocol/record-batch';
import type { DeferredInflation } from './produce-inflation';

/** ProduceResponse's BatchIndexAndErrorMessage (KIP-467). */
export interface RecordError {
  batchIndex: number;
  batchIndexErrorMessage: string | null;
}

export interface ValidBatch {
  /** The header as received, except maxTimestamp: computed from the records. */
  header: RecordBatchHeader;
  data: Buffer;
}

export type BatchCheck =
  | { ok: true; batches: ValidBatch[] }
  | {
      ok: false;
      errorCode: number;
      message: string;
      recordErrors: RecordError[];
      /**
       * Whether Kafka's answer carries the partition's log start offset: it does for faults its log
       * finds (LogValidator's RecordValidationException and the other exceptions of
       * ReplicaManager.appendToLocalLog's last catch), not for ProduceRequest.validateRecords' checks
       * nor for corrupt or too large batches (UNKNOWN_LOG_APPEND_INFO: -1).
       */
      withLogStartOffset: boolean;
      /**
       * Set when the batch is valid so far but its records must be inflated off the event loop
       * first: the caller inflates them (inflateOffLoop) and validates again with the result.
       * Without it the answer is UNKNOWN_SERVER_ERROR, never a silent acceptance.
       */
      inflate?: DeferredInflation;
    };

export const fail = (errorCode: number, message: string, recordErrors: RecordError[] = []): BatchCheck => ({
  ok: false,
  errorCode,
  message,
  recordErrors,
  withLogStartOffset: errorCode !== ErrorCode.CORRUPT_MESSAGE && errorCode !== ErrorCode.MESSAGE_TOO_LARGE,
});
/** A fault ProduceRequest.validateRecords finds, before the log is involved. */
export const refuse = (errorCode: number, message: string): BatchCheck => ({
  ok: false,
  errorCode,
  message,
  recordErrors: [],
  withLogStartOffset: false,
});
