// Every setting of the originals Sluice stands in for, read from their real ConfigDefs (Kafka's and
// Debezium's jars, through test/fixtures/java/ConfigDefProbe.java), is implemented by Sluice, refused
// by it or accepted with a warning that it has no effect: none is silently ignored. Debezium's
// PostgreSQL connector, and Kafka's transforms, predicates and converters and Debezium's
// ExtractNewRecordState, outbox EventRouter and ByLogicalTableRouter / ToLogicalTopicRouter (which
// Sluice implements whole; Debezium's transforms with Debezium's defaults).
import { expect, test } from "bun:test";
import { spawnSync } from "bun";
import { join } from "node:path";
import { postgresCdcSettings } from "#src/connectors/postgres-cdc/config.ts";
import { BUILTIN_CONVERTERS } from "#src/connect/converters/index.ts";
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from "#src/connect/transforms/registry.ts";
import type { SettingsDefinition } from "#src/platform/settings.ts";
import { debeziumClasspath } from "../../fixtures/debezium.ts";
import { kafkaClasspath } from "../../fixtures/kafka.ts";

interface JavaSetting {
  class: string;
  name: string;
  type: string;
  default: string | null;
}

/** The settings a Java plugin class declares, by test/fixtures/java/ConfigDefProbe.java. */
function javaConfigDef(classpath: string, ...classNames: string[]): JavaSetting[] {
  const probe = join(import.meta.dir, "..", "..", "fixtures", "java", "ConfigDefProbe.java");
  const run = spawnSync(
    ["java", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classpath, probe, ...classNames],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (run.exitCode !== 0) throw new Error(`ConfigDefProbe failed: ${run.stderr.toString()}`);
  return run.stdout
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JavaSetting);
}

/** A name of a family Debezium declares by pattern (`column.mask.with.(d+).chars`). */
const example = (name: string) => name.replace("(d+)", "8").replace("([^.]+)", "SHA-256").replace("(.+)", "pepper");

const debezium = javaConfigDef(
  `${kafkaClasspath()}:${debeziumClasspath()}`,
  "io.debezium.connector.postgresql.PostgresConnector",
);

test("Debezium's ConfigDef is read whole", () => {
  expect(debezium.length).toBeGreaterThan(100);
  expect(debezium.map((s) => s.name)).toContain("column.mask.with.(d+).chars");
});

test("every Debezium setting is implemented, refused or warned about", () => {
  const silent = debezium.map((s) => example(s.name)).filter((name) => !postgresCdcSettings.find(name));
  expect(silent).toEqual([]);
});

test("what Sluice declares as Debezium's and does not implement is Debezium's", () => {
  const names = new Set(debezium.map((s) => example(s.name)));
  const examples: Record<string, string> = {
    "column.mask.hash.v2.<algorithm>.with.salt.<salt>": "column.mask.hash.v2.SHA-256.with.salt.pepper",
  };
  const notDebeziums = postgresCdcSettings.unsupported
    .filter((s) => !s.pattern && !names.has(s.name))
    .map((s) => s.name);
  expect(notDebeziums).toEqual([]);
  // Families: each matches Debezium's example name (the v2 hash, documented by Debezium, is not in its ConfigDef).
  for (const s of postgresCdcSettings.unsupported.filter((s) => s.pattern)) {
    const name = examples[s.name] ?? [...names].find((n) => s.pattern!.test(n));
    expect(name === undefined ? s.name : postgresCdcSettings.find(name)).toBe(s);
  }
});

test("a refused setting given Debezium's default is accepted", () => {
  for (const s of postgresCdcSettings.unsupported.filter(
    (s) => s.unsupported!.kind === "refused" && s.unsupported!.harmless,
  )) {
    const original = debezium.find((d) => d.name === s.name);
    // Debezium declares no default for lsn.flush.mode; its documented default is connector.
    if (original?.default == null) continue;
    expect({
      name: s.name,
      refused: postgresCdcSettings.unsupportedIn({ [s.name]: original.default }).refused.length,
    }).toEqual({ name: s.name, refused: 0 });
  }
});

test("every setting of Kafka's transforms, predicates and converters, and of Debezium's transforms, is Sluice's", () => {
  const plugins: [string, { config?(): SettingsDefinition }][] = [
    ...Object.entries(BUILTIN_TRANSFORMS).filter(
      ([name]) => name.startsWith("org.apache.kafka.") || name.startsWith("io.debezium."),
    ),
    ...Object.entries(BUILTIN_PREDICATES).filter(([name]) => name.startsWith("org.apache.kafka.")),
    ...Object.entries(BUILTIN_CONVERTERS).filter(([name]) => name.startsWith("org.apache.kafka.")),
  ].map(([name, create]) => [name, create()]);
  const originals = javaConfigDef(`${kafkaClasspath()}:${debeziumClasspath()}`, ...plugins.map(([name]) => name));
  expect(new Set(originals.map((s) => s.class)).size).toBeGreaterThan(30);
  const silent = originals
    .filter(
      (s) =>
        !plugins
          .find(([name]) => name === s.class)![1]
          .config?.()
          .find(s.name),
    )
    .map((s) => `${s.class} ${s.name}`);
  expect(silent).toEqual([]);
  expect([...new Set(originals.map((s) => s.class))].filter((c) => c.startsWith("io.debezium.")).sort()).toEqual([
    "io.debezium.transforms.ByLogicalTableRouter",
    "io.debezium.transforms.ExtractNewRecordState",
    "io.debezium.transforms.ToLogicalTopicRouter",
    "io.debezium.transforms.outbox.EventRouter",
  ]);
  // Debezium's transforms default as Debezium's do (ExtractNewRecordState keeps the legacy settings' defaults of 2.x).
  const defaults = originals
    .filter((s) => s.class.startsWith("io.debezium.") && !s.class.endsWith("ExtractNewRecordState"))
    .map((s) => {
      const ours = plugins.find(([name]) => name === s.class)![1].config!().find(s.name)!;
      const value = ours.default;
      return `${s.class} ${s.name}=${value === undefined || value === null ? "" : Array.isArray(value) ? value.join(",") : String(value)}`;
    });
  expect(defaults).toEqual(
    originals
      .filter((s) => s.class.startsWith("io.debezium.") && !s.class.endsWith("ExtractNewRecordState"))
      .map((s) => `${s.class} ${s.name}=${s.default ?? ""}`),
  );
});
