// Kafka Connect's REST errors: the HTTP status doubles as error_code.
export class ConnectRestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ConnectRestError";
  }
}

export const connectErrors = {
  badRequest: (message: string) => new ConnectRestError(400, message),
  notFound: (message: string) => new ConnectRestError(404, message),
  conflict: (message: string) => new ConnectRestError(409, message),
  forbidden: (message: string) => new ConnectRestError(403, message),
};
