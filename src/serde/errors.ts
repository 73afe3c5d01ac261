// Kafka's SerializationException, by name: what a Confluent serializer or deserializer throws.
export class SerializationException extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "SerializationException";
  }
}

/** An error answer of the schema registry, with Confluent's error_code. */
export class RestClientException extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly errorCode: number,
  ) {
    super(`${message}; error code: ${errorCode}`);
    this.name = "RestClientException";
  }
}
