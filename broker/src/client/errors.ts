// The client's error: what failed, and the Kafka error code when the broker gave one.
export class KafkaClientError extends Error {
  override readonly name = 'KafkaClientError';
  constructor(
    message: string,
    readonly errorCode?: number,
  ) {
    super(message);
  }
}
