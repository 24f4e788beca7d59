// SaslHandshake (key 17): v0-1. The client names its mechanism; v0 means the tokens that follow
// are unframed, v1 that they come in SaslAuthenticate requests. On a listener without SASL Kafka
// answers ILLEGAL_SASL_STATE (KafkaApis.handleSaslHandshakeRequest); on a SASL listener the
// connection's authenticator answers (and, once authenticated, starts a KIP-368 re-authentication).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { SaslHandshakeRequest, SaslHandshakeResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

export const saslHandshakeHandler: ApiHandler<SaslHandshakeRequest, SaslHandshakeResponse> = {
  apiKey: ApiKey.SaslHandshake,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    if (!ctx.sasl) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    return ctx.sasl.handshake(req.mechanism, ctx.apiVersion);
  },
};
