// Confluent Schema Registry's errors: HTTP status + error_code + message, texts as Confluent words them.

export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = "RegistryError";
  }
}

const err = (status: number, code: number, message: string) => new RegistryError(status, code, message);

export const errors = {
  badRequest: (message: string) => err(400, 400, message),
  notFound: () => err(404, 404, "HTTP 404 Not Found"),
  methodNotAllowed: () => err(405, 405, "HTTP 405 Method Not Allowed"),
  /** Confluent's RBAC denial, which clients (ksqlDB, serializers) recognise by its code. */
  forbidden: (operation: string, resource: string) =>
    err(403, 40301, `User is denied operation ${operation} on ${resource}`),
  tooLarge: () => err(413, 413, "Request entity too large"),
  unsupportedMediaType: () => err(415, 415, "HTTP 415 Unsupported Media Type"),
  subjectNotFound: (subject: string) => err(404, 40401, `Subject '${subject}' not found.`),
  versionNotFound: (version: number) => err(404, 40402, `Version ${version} not found.`),
  schemaIdNotFound: (id: number) => err(404, 40403, `Schema ${id} not found`),
  schemaGuidNotFound: (guid: string) => err(404, 40403, `Schema ${guid} not found`),
  schemaNotFound: () => err(404, 40403, "Schema not found"),
  subjectSoftDeleted: (subject: string) =>
    err(404, 40404, `Subject '${subject}' was soft deleted.Set permanent=true to delete permanently`),
  subjectNotSoftDeleted: (subject: string) =>
    err(404, 40405, `Subject '${subject}' was not deleted first before being permanently deleted`),
  versionSoftDeleted: (subject: string, version: number) =>
    err(
      404,
      40406,
      `Subject '${subject}' Version ${version} was soft deleted.Set permanent=true to delete permanently`,
    ),
  versionNotSoftDeleted: (subject: string, version: number) =>
    err(404, 40407, `Subject '${subject}' Version ${version} was not deleted first before being permanently deleted`),
  subjectConfigNotFound: (subject: string) =>
    err(404, 40408, `Subject '${subject}' does not have subject-level compatibility configured`),
  subjectModeNotFound: (subject: string) =>
    err(404, 40409, `Subject '${subject}' does not have subject-level mode configured`),
  incompatible: (message: string) => err(409, 409, message),
  invalidSchema: (message: string) => err(422, 42201, message),
  invalidVersion: (version: string) =>
    err(
      422,
      42202,
      `The specified version '${version}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
    ),
  invalidCompatibilityLevel: () =>
    err(
      422,
      42203,
      "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive",
    ),
  invalidMode: () => err(422, 42204, "Invalid mode. Valid values are READWRITE, READONLY, IMPORT."),
  operationNotPermitted: (message: string) => err(422, 42205, message),
  referenceExists: (subject: string, version: number) =>
    err(
      422,
      42206,
      `One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=${subject},version=${version}}.`,
    ),
  idMismatch: () => err(422, 42207, "The ID of an imported schema does not match the existing ID"),
  invalidSubject: (subject: string) => err(422, 42208, `The specified subject '${subject}' is not a valid.`),
  schemaTooLarge: () => err(422, 42209, "Register operation failed because schema is too large"),
  invalidRuleSet: (message: string) => err(422, 42210, message),
  contextNotEmpty: (context: string) => err(422, 42211, `The specified context '${context}' is not empty.`),
  store: (message: string) => err(500, 50001, message),
  timeout: (message: string) => err(500, 50002, message),
  forwarding: (message: string) => err(500, 50003, message),
  leaderNotKnown: () => err(500, 50004, "Leader not known."),
  internal: () => err(500, 500, "Internal Server Error"),
};

/** A write this instance may not do: the leader at `url` does it (the HTTP layer forwards the request). */
export class ForwardToLeader extends Error {
  constructor(readonly url: string) {
    super(`forward to the leader at ${url}`);
    this.name = "ForwardToLeader";
  }
}
