// Serializer/deserializer settings, by Confluent's names (AbstractKafkaSchemaSerDeConfig).
import { SettingsDefinition, type ParsedSettings, type Setting } from "../platform/settings.ts";
import { SerializationException } from "./errors.ts";
import { serdeUnsupportedSettings } from "./unsupported-settings.ts";

export const SUBJECT_NAME_STRATEGIES = ["TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"] as const;
export type SubjectNameStrategy = (typeof SUBJECT_NAME_STRATEGIES)[number];

const strategy = (name: string): Setting => ({
  name,
  type: "class",
  default: "TopicNameStrategy",
  importance: "medium",
  doc: "How the subject is named: TopicNameStrategy (<topic>-key|value), RecordNameStrategy (<record full name>), TopicRecordNameStrategy (<topic>-<record full name>). Java class names are accepted.",
  validate: (v) => (subjectNameStrategy(String(v)) ? undefined : `one of ${SUBJECT_NAME_STRATEGIES.join(", ")}`),
});

export const serdeSettings = new SettingsDefinition(
  [
    {
      name: "schema.registry.url",
      type: "list",
      required: true,
      importance: "high",
      doc: "Comma-separated registry URLs, tried in order (fail-over).",
    },
    {
      name: "auto.register.schemas",
      type: "boolean",
      default: true,
      importance: "medium",
      doc: "Register the writer's schema when serializing.",
    },
    {
      name: "use.latest.version",
      type: "boolean",
      default: false,
      importance: "medium",
      doc: "Without auto-registration, serialize with the subject's latest schema.",
    },
    {
      name: "latest.compatibility.strict",
      type: "boolean",
      default: true,
      importance: "low",
      doc: "With use.latest.version, check that the latest schema can read the given schema.",
    },
    {
      name: "normalize.schemas",
      type: "boolean",
      default: false,
      importance: "low",
      doc: "Normalize schemas when registering or looking them up.",
    },
    {
      name: "use.schema.id",
      type: "int",
      default: -1,
      importance: "low",
      doc: "Serialize with this schema id (-1: off).",
    },
    strategy("key.subject.name.strategy"),
    strategy("value.subject.name.strategy"),
    {
      name: "basic.auth.credentials.source",
      type: "string",
      default: "URL",
      oneOf: ["URL", "USER_INFO"],
      importance: "medium",
      doc: "Where HTTP Basic credentials come from: the URL's user info or basic.auth.user.info.",
    },
    {
      name: "basic.auth.user.info",
      type: "password",
      default: "",
      importance: "medium",
      doc: "user:password for HTTP Basic authentication.",
    },
    {
      name: "max.schemas.per.subject",
      type: "int",
      default: 1000,
      min: 1,
      importance: "low",
      doc: "Bound of each client cache.",
    },
    {
      name: "request.timeout.ms",
      type: "int",
      default: 30000,
      min: 1,
      importance: "low",
      doc: "Timeout of one registry request.",
    },
    ...serdeUnsupportedSettings,
  ],
  ["schema.registry.", "key.", "value.", "specific."],
);

export type SerdeConfig = Record<string, string | number | boolean>;

export function parseSerdeConfig(config: SerdeConfig): ParsedSettings {
  return serdeSettings.parse(Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]))).values;
}

/** Accepts the short names and Confluent's Java class names. */
export function subjectNameStrategy(value: string): SubjectNameStrategy | undefined {
  const short = value.split(".").pop()!;
  return (SUBJECT_NAME_STRATEGIES as readonly string[]).includes(short) ? (short as SubjectNameStrategy) : undefined;
}

export function subjectName(
  strategy: SubjectNameStrategy,
  topic: string,
  isKey: boolean,
  recordName: () => string | undefined,
): string {
  if (strategy === "TopicNameStrategy") return `${topic}-${isKey ? "key" : "value"}`;
  const name = recordName();
  if (!name) throw new SerializationException(`${strategy} needs a record name, and the schema has none`);
  return strategy === "RecordNameStrategy" ? name : `${topic}-${name}`;
}
