// Confluent Schema Registry settings that Sluice does not implement: the registry refuses to start
// with one that would change security or what it stores, and warns about the tuning ones.
import { refused, unsupportedAll, type Setting } from "../platform/settings.ts";

/** Confluent's DEK registry, a resource extension there; built into Sluice's registry and always on. */
export const DEK_REGISTRY_EXTENSION = "io.confluent.dekregistry.DekRegistryResourceExtension";

const EXTENSIONS = `Sluice runs no Java resource extensions; the DEK registry (${DEK_REGISTRY_EXTENSION}) is built in and always on`;

export const unsupportedRegistrySettings: Setting[] = [
  refused("resource.extension.class", EXTENSIONS, [DEK_REGISTRY_EXTENSION]),
  refused("schema.registry.resource.extension.class", EXTENSIONS, [DEK_REGISTRY_EXTENSION]),
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

/** Whether settings name the DEK registry extension, which Sluice has built in (said once at start-up). */
export function namesBuiltInExtension(raw: Record<string, string>): boolean {
  return ["resource.extension.class", "schema.registry.resource.extension.class"].some(
    (k) => raw[k]?.trim() === DEK_REGISTRY_EXTENSION,
  );
}
