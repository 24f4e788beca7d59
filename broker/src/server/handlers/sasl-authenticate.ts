// SaslAuthenticate (key 36): v0-2. Carries one SASL token each way; v1+ reports the session's
// lifetime (KIP-368). Outside an exchange (a listener without SASL, or after authentication without
// a new SaslHandshake) Kafka answers ILLEGAL_SASL_STATE (KafkaApis.handleSaslAuthenticateRequest).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { AUTHENTICATE_OUT_OF_TURN } from '../sasl/sasl-authenticator';

export const saslAuthenticateHandler: ApiHandler<SaslAuthenticateRequest, SaslAuthenticateResponse> = {
  apiKey: ApiKey.SaslAuthenticate,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    if (!ctx.sasl)
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: AUTHENTICATE_OUT_OF_TURN,
        authBytes: Buffer.alloc(0),
        sessionLifetimeMs: 0n,
      };
    return ctx.sasl.authenticate(req.authBytes);
  },
};
