/** An ops failure whose message says what failed and what to do; the CLI prints only the message. */
export class OpsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpsError';
  }
}

export interface ErrorContext {
  readonly stackName: string;
  readonly region?: string | undefined;
}

/** Turns the AWS SDK's errors for the usual setup mistakes into OpsErrors with the fix. */
export function explainAwsError(err: unknown, ctx: ErrorContext): Error {
  if (err instanceof OpsError) return err;
  const e = err as { name?: string; message?: string; Code?: string };
  const name = e.name ?? '';
  const message = e.message ?? String(err);
  const where = ctx.region ? ` in ${ctx.region}` : '';
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(message)) {
    return new OpsError(
      'no AWS credentials found: set AWS_PROFILE (after `aws configure` or `aws sso login`), ' +
        'or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
      { cause: err },
    );
  }
  if (/Region is missing/i.test(message)) {
    return new OpsError('no AWS region: pass --region (the one you deployed to) or set AWS_REGION', { cause: err });
  }
  if (name === 'ExpiredToken' || name === 'ExpiredTokenException' || /security token .* expired/i.test(message)) {
    return new OpsError('your AWS credentials have expired: refresh them (e.g. `aws sso login`) and retry', {
      cause: err,
    });
  }
  if (name === 'ValidationError' && /does not exist/i.test(message)) {
    return new OpsError(
      `stack "${ctx.stackName}" not found${where}: pass --stack with the name you deployed ` +
        '(default Minnow) and --region with its region',
      { cause: err },
    );
  }
  if (name === 'UnauthorizedOperation' || name === 'AccessDenied' || name === 'AccessDeniedException') {
    return new OpsError(`not allowed: ${message}`, { cause: err });
  }
  return err instanceof Error ? err : new Error(message);
}
