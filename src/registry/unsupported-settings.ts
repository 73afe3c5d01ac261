// Confluent Schema Registry settings that Sluice does not implement: the registry refuses to start
// with one that would change security or what it stores, and warns about the tuning ones.
import { refused, unsupportedAll, type Setting } from "../platform/settings.ts";

/** Confluent's DEK registry, a resource extension there; built into Sluice's registry and always on. */
export const DEK_REGISTRY_EXTENSION = "io.confluent.dekregistry.DekRegistryResourceExtension";
/** Confluent's schema exporters (schema linking), a resource extension there; built in and always on too. */
export const SCHEMA_EXPORTER_EXTENSION = "io.confluent.schema.exporter.SchemaExporterResourceExtension";
const BUILT_IN = [DEK_REGISTRY_EXTENSION, SCHEMA_EXPORTER_EXTENSION];
/** Either extension, or both as Confluent's configs list them (comma-separated, either order). */
const BUILT_IN_VALUES = [
  ...BUILT_IN,
  ...[", ", ","].flatMap((comma) => [BUILT_IN.join(comma), [...BUILT_IN].reverse().join(comma)]),
];

const EXTENSIONS = `Sluice runs no Java resource extensions; the DEK registry (${DEK_REGISTRY_EXTENSION}) and the schema exporters (${SCHEMA_EXPORTER_EXTENSION}) are built in and always on`;

export const unsupportedRegistrySettings: Setting[] = [
  refused("resource.extension.class", EXTENSIONS, BUILT_IN_VALUES),
  refused("schema.registry.resource.extension.class", EXTENSIONS, BUILT_IN_VALUES),
  refused(
    "confluent.schema.registry.authorizer.class",
    "Sluice authorizes with its users and permissions files only (docs/security.md)",
  ),
  refused("response.http.headers.config", "Sluice adds no configured headers to its responses", [""]),
  refused("csrf.prevention.enable", "Sluice has no CSRF token filter", ["false"]),
  refused("dos.filter.enabled", "Sluice has no DoS filter (rate limits per client)", ["false"]),
  refused("enable.fips", "Sluice does not restrict itself to FIPS-approved ciphers", ["false"]),
  refused(
    "schema.providers",
    "Sluice's schema types (Avro, JSON Schema, Protobuf) are built in; it loads no Java schema providers",
    [""],
  ),
  ...unsupportedAll(
    "ignored",
    [
      "metric.reporters",
      "metrics.jmx.prefix",
      "metrics.num.samples",
      "metrics.sample.window.ms",
      ["metrics.tag.<name>", /^metrics\.tag\./],
    ],
    "Sluice has no JMX or metric reporters; its metrics are served at /metrics",
  ),
  ...unsupportedAll(
    "ignored",
    [
      "idle.timeout.ms",
      "thread.pool.min",
      "thread.pool.max",
      "request.queue.capacity",
      "shutdown.graceful.ms",
      "compression.enable",
      "request.logger.name",
      "http2.enabled",
    ],
    "it tunes Confluent's Jetty server; Sluice's HTTP server has no such knob",
  ),
];

/** The built-in extensions the settings name (each said once at start-up). */
export function builtInExtensionsNamed(raw: Record<string, string>): string[] {
  const named = ["resource.extension.class", "schema.registry.resource.extension.class"].flatMap((k) =>
    (raw[k] ?? "").split(",").map((c) => c.trim()),
  );
  return BUILT_IN.filter((e) => named.includes(e));
}
