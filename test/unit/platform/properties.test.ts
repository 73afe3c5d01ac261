import { describe, expect, test } from "bun:test";
import { parseProperties, propertiesFromEnv } from "#src/platform/properties.ts";
import { type ConfigError, unknownSettingWarning } from "#src/platform/settings.ts";
import { registrySettingsDefinition } from "#src/registry/settings.ts";

describe("Java .properties syntax", () => {
  test("separators, comments, continuations and escapes", () => {
    const text = [
      "# comment",
      "! also a comment",
      "listeners=http://0.0.0.0:8081",
      "  kafkastore.topic : _schemas",
      "host.name   example.org",
      "multi = one, \\",
      "        two",
      "unicode=caf\\u00e9\\tend",
      "key\\ with\\ spaces=v",
      "empty=",
    ].join("\n");
    expect(parseProperties(text)).toEqual({
      listeners: "http://0.0.0.0:8081",
      "kafkastore.topic": "_schemas",
      "host.name": "example.org",
      multi: "one, two",
      unicode: "café\tend",
      "key with spaces": "v",
      empty: "",
    });
  });

  test("Confluent image environment variables", () => {
    expect(
      propertiesFromEnv("SCHEMA_REGISTRY_", {
        SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS: "k:9092",
        SCHEMA_REGISTRY_KAFKASTORE_TOPIC_REPLICATION_FACTOR: "1",
        SCHEMA_REGISTRY_SOME__UNDERSCORE: "a",
        SCHEMA_REGISTRY_WITH___DASH: "b",
        OTHER: "x",
      }),
    ).toEqual({
      "kafkastore.bootstrap.servers": "k:9092",
      "kafkastore.topic.replication.factor": "1",
      some_underscore: "a",
      "with-dash": "b",
    });
  });
});

describe("settings declarations", () => {
  test("aliases, defaults, later sources win, unknown settings are named", () => {
    const { values, unknown } = registrySettingsDefinition.parse(
      { "brokerstore.bootstrap.servers": "a:1,b:2", "avro.compatibility.level": "full", "made.up": "x" },
      { "kafkastore.topic": "t1" },
    );
    expect(values.list("kafkastore.bootstrap.servers")).toEqual(["a:1", "b:2"]);
    expect(values.string("schema.compatibility.level")).toBe("FULL");
    expect(values.string("kafkastore.topic")).toBe("t1");
    expect(values.int("kafkastore.topic.replication.factor")).toBe(3);
    expect(unknown).toEqual(["made.up"]);
    // Confluent client prefixes pass through without a warning.
    expect(registrySettingsDefinition.parse({ "kafkastore.security.protocol": "SSL" }).unknown).toEqual([]);
    // …unless the name is a typo of a declared one.
    expect(registrySettingsDefinition.parse({ "kafkastore.bootstrap.server": "k:9092" }).unknown).toEqual([
      "kafkastore.bootstrap.server",
    ]);
  });

  test("an unknown setting is reported with the known name it most likely misspells", () => {
    const known = registrySettingsDefinition.names();
    expect(unknownSettingWarning("kafkastore.bootstrap.server", known)).toBe(
      "Unknown setting kafkastore.bootstrap.server is ignored; did you mean kafkastore.bootstrap.servers?",
    );
    expect(unknownSettingWarning("made.up", known)).toBe("Unknown setting made.up is ignored");
  });

  test("invalid values name the setting, the value and what is allowed", () => {
    const attempt = (raw: Record<string, string>) => {
      try {
        registrySettingsDefinition.parse(raw);
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error("expected a ConfigError");
    };
    expect(attempt({ "kafkastore.timeout.ms": "soon" }).message).toBe(
      'Invalid value "soon" for setting kafkastore.timeout.ms: an integer is required',
    );
    expect(attempt({ "kafkastore.topic.replication.factor": "0" }).message).toContain("must be at least 1");
    expect(attempt({ "mode.mutability": "yes" }).message).toContain("expected true or false");
    expect(attempt({ listeners: "localhost:8081" }).setting).toBe("listeners");
    expect(attempt({ "brokerstore.topic": "bad topic" }).message).toContain("setting brokerstore.topic");
  });
});
