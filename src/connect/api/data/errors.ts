// Kafka Connect's data exceptions, by name: connector code and error reports match on them.

/** `org.apache.kafka.connect.errors.DataException`: a value does not fit its schema or cannot be converted. */
export class DataException extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DataException";
  }
}

/** `org.apache.kafka.connect.errors.SchemaBuilderException`: an invalid SchemaBuilder call. */
export class SchemaBuilderException extends DataException {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SchemaBuilderException";
  }
}
