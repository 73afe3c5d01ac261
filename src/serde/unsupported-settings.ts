// Settings of Confluent's serializers and converters (AbstractKafkaSchemaSerDeConfig,
// SchemaRegistryClientConfig) that Sluice's do not implement: a converter refuses those that would
// change the bytes written or how the registry is reached, and warns about the tuning ones. The
// bearer.auth.* settings are left to the registry client's OAuth support.
import { ignored, refused, unsupportedAll, type Setting } from "../platform/settings.ts";

const CLIENT_TUNING = "it tunes Confluent's registry client; Sluice's has no such knob";

export const serdeUnsupportedSettings: Setting[] = [
  refused("use.schema.guid", "Sluice serializes by schema id, never by GUID", [""]),
  refused("use.latest.with.metadata", "Sluice does not choose schema versions by metadata", [""]),
  refused("propagate.schema.tags", "Sluice does not carry schema tags into the schemas it registers", ["false"]),
  refused("schema.format", "Sluice registers and looks up schemas in their own format only", [""]),
  refused("schema.reflection", "Sluice does not derive schemas from classes", ["false"]),
  refused("context.name.strategy", "Sluice uses the default context only", [
    "io.confluent.kafka.serializers.context.NullContextNameStrategy",
  ]),
  refused("key.schema.id.serializer", "Sluice writes the schema id in the Confluent prefix (magic byte and id) only", [
    "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdSerializer",
  ]),
  refused(
    "value.schema.id.serializer",
    "Sluice writes the schema id in the Confluent prefix (magic byte and id) only",
    ["io.confluent.kafka.serializers.schema.id.PrefixSchemaIdSerializer"],
  ),
  refused("key.schema.id.deserializer", "Sluice reads the schema id from the Confluent prefix only", [
    "io.confluent.kafka.serializers.schema.id.DualSchemaIdDeserializer",
    "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdDeserializer",
  ]),
  refused("value.schema.id.deserializer", "Sluice reads the schema id from the Confluent prefix only", [
    "io.confluent.kafka.serializers.schema.id.DualSchemaIdDeserializer",
    "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdDeserializer",
  ]),
  refused(
    "rule.executors",
    "Sluice's converters run no data contract rules (no field encryption, no CEL checks or transforms)",
    [""],
  ),
  refused("rule.actions", "Sluice's converters run no data contract rules", [""]),
  refused("validation.rules.executor.class", "Sluice's converters run no data contract rules", [""]),
  refused("proxy.host", "Sluice reaches the registry directly; it has no HTTP proxy", [""]),
  {
    ...refused("request.header.<name>", "Sluice sends no configured headers to the registry"),
    pattern: /^request\.header\./,
  },
  ...unsupportedAll(
    "ignored",
    ["rule.service.loader.enable", "rule.metrics.enable", "validation.rules.fail.fast", "execution.environment"],
    "Sluice's converters run no data contract rules",
  ),
  ...unsupportedAll(
    "ignored",
    [
      "schema.registry.url.randomize",
      "http.connect.timeout.ms",
      "http.read.timeout.ms",
      "max.retries",
      "retries.wait.ms",
      "retries.max.wait.ms",
      "latest.cache.size",
      "latest.cache.ttl.sec",
      "proxy.port",
    ],
    CLIENT_TUNING,
  ),
  ignored(
    "id.compatibility.strict",
    "Sluice does not check the schema of use.schema.id against the data's (as Confluent's with false)",
  ),
];
