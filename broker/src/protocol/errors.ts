/**
 * Thrown when bytes off the wire do not form a valid message: a length past the end of the frame,
 * a null where the spec forbids one, a bad varint. The server closes that connection only.
 */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

/** Thrown when a value cannot be encoded in the requested version (e.g. null for a non-nullable field). */
export class EncodeError extends Error {
  override readonly name = 'EncodeError';
}
