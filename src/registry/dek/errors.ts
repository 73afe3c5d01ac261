// The DEK registry's errors, with Confluent's statuses, codes and texts (DekRegistryErrors).
import { RegistryError } from "../errors.ts";

const err = (status: number, code: number, message: string) => new RegistryError(status, code, message);

export const dekErrors = {
  keyNotFound: (name: string) => err(404, 40470, `Key '${name}' not found`),
  keyNotSoftDeleted: (name: string) =>
    err(404, 40471, `Key '${name}' was not deleted first before being permanently deleted`),
  keySoftDeleted: (name: string) => err(404, 40472, `Key '${name}' must be undeleted first`),
  alreadyExists: (name: string) => err(409, 40971, `Key '${name}' already exists; use a different value`),
  tooManyKeys: (max: number) => err(409, 40972, `A maximum of ${max} keys already exist`),
  invalidKey: (field: string) => err(422, 42271, `Invalid or missing value for field '${field}' of key`),
  referenceExists: (name: string) => err(422, 42272, `One or more references exist to the key '${name}'`),
  /** A DEK the KMS could not wrap or unwrap (403/40370 would be an access denial, which local-kms never gives). */
  generation: (message: string) => err(500, 50070, message),
};
