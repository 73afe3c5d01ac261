// The schema exporters' errors, with Confluent's statuses and codes (its exporter API reference).
import { RegistryError } from "../errors.ts";

const err = (status: number, code: number, message: string) => new RegistryError(status, code, message);

export const exporterErrors = {
  notFound: (name: string) => err(404, 40450, `Exporter '${name}' not found.`),
  invalidName: (why: string) => err(409, 40950, `Missing or invalid exporter name: ${why}`),
  invalidConfig: (why: string) => err(409, 40951, `Missing or invalid exporter config: ${why}`),
  invalidSubjects: (why: string) => err(409, 40952, `Invalid exporter subjects: ${why}`),
  alreadyExists: (name: string) => err(409, 40960, `Exporter '${name}' already exists.`),
  alreadyRunning: (name: string) => err(409, 40961, `Exporter '${name}' already running.`),
  notPaused: (name: string) => err(409, 40963, `Exporter '${name}' not paused.`),
  tooMany: (max: number) => err(409, 40964, `Too many exporters. The limit is ${max}.`),
};
