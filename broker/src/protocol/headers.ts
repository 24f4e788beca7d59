// Request/response header versions (protocol README "Framing and headers", KIP-482, KIP-511).
import { API_SPEC_BY_KEY } from './messages/registry';
import { ApiKey } from './api-keys';

function isFlexible(apiKey: number, apiVersion: number): boolean {
  const spec = API_SPEC_BY_KEY.get(apiKey);
  return spec !== undefined && spec.flexibleMinVersion >= 0 && apiVersion >= spec.flexibleMinVersion;
}

/** v2 for flexible request versions, else v1 (v0 only for ControlledShutdown v0, key 7). */
export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === 7 && apiVersion === 0) return 0;
  return isFlexible(apiKey, apiVersion) ? 2 : 1;
}

/** v1 for flexible versions, else v0; ApiVersions responses always use v0 so any client can read them. */
export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === ApiKey.ApiVersions) return 0;
  return isFlexible(apiKey, apiVersion) ? 1 : 0;
}
