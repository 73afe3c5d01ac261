// A connector's Kafka client overrides (KIP-458): `producer.override.*`, `consumer.override.*` and
// `admin.override.*`, allowed by the worker's connector.client.config.override.policy and checked as
// Kafka's clients check them, with Kafka's messages.
import {
  checkClientSettings,
  taskClientProps,
  withoutPrefix,
  type ClientKind,
} from "../../../broker/client-settings.ts";
import { clientSettings } from "../../../broker/client-settings.ts";
import { noEffectWarning, unknownSettingWarning, type ParsedSettings } from "../../../platform/settings.ts";

export const OVERRIDE_PREFIXES: Record<ClientKind, string> = {
  producer: "producer.override.",
  consumer: "consumer.override.",
  admin: "admin.override.",
};
const KINDS: ClientKind[] = ["producer", "consumer", "admin"];

export type OverridePolicy = "All" | "None" | "Principal";

const POLICY_PACKAGE = "org.apache.kafka.connect.connector.policy.";
/** Kafka's policies by alias and by class name. */
const POLICIES: Record<string, OverridePolicy> = Object.fromEntries(
  (["All", "None", "Principal"] as const).flatMap((p) => [
    [p, p],
    [`${POLICY_PACKAGE}${p}ConnectorClientConfigOverridePolicy`, p],
  ]),
);

/** The policy a connector.client.config.override.policy value names; undefined for none Sluice has. */
export function overridePolicyOf(value: string): OverridePolicy | undefined {
  const given = value.trim();
  return POLICIES[given] ?? POLICIES[`${POLICY_PACKAGE}${given}`];
}

/** The worker's policy (its declaration has checked the value). */
export function overridePolicy(settings: ParsedSettings): OverridePolicy {
  return overridePolicyOf(settings.string("connector.client.config.override.policy")) ?? "All";
}

/** What the worker setting's declaration says of a value it does not take. */
export function overridePolicyProblem(value: unknown): string | undefined {
  return overridePolicyOf(String(value))
    ? undefined
    : "allowed values are All, None, Principal (or their Kafka class names)";
}

/** Principal's: the settings that say who the connector is to Kafka. */
const PRINCIPAL_SETTINGS = new Set(["sasl.jaas.config", "sasl.mechanism", "security.protocol"]);

function allowed(policy: OverridePolicy, name: string): boolean {
  return policy === "All" || (policy === "Principal" && PRINCIPAL_SETTINGS.has(name));
}

/**
 * The clients a connector's tasks have in Kafka Connect, whose overrides are checked: a source's producer;
 * a sink's consumer, and its producer and admin client when it has a dead letter queue. (A source's admin
 * client serves topic.creation.* groups, which Sluice refuses.) Unknown type: every kind.
 */
export function clientKindsOf(type: "source" | "sink" | undefined, config: Record<string, string>): ClientKind[] {
  if (type === "source") return ["producer"];
  if (type === "sink")
    return (config["errors.deadletterqueue.topic.name"] ?? "").trim()
      ? ["consumer", "producer", "admin"]
      : ["consumer"];
  return KINDS;
}

/**
 * What is wrong with a connector's client overrides, by config key: those the policy does not allow
 * (Kafka's message), and values Kafka's client would refuse, over the worker's client settings (Kafka
 * Connect fails the task when it builds the client; Sluice says so when the config is validated).
 */
export function clientOverrideProblems(
  config: Record<string, string>,
  policy: OverridePolicy,
  workerConfig: Record<string, string>,
  type?: "source" | "sink",
): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  for (const kind of clientKindsOf(type, config)) {
    const prefix = OVERRIDE_PREFIXES[kind];
    const overrides = withoutPrefix(config, prefix);
    let refusedByPolicy = false;
    for (const name of Object.keys(overrides)) {
      if (allowed(policy, name)) continue;
      refusedByPolicy = true;
      problems.set(`${prefix}${name}`, [
        `The '${policy}' policy does not allow '${name}' to be overridden in the connector configuration.`,
      ]);
    }
    if (refusedByPolicy || Object.keys(overrides).length === 0) continue;
    const check = checkClientSettings(kind, taskClientProps(kind, workerConfig, config));
    for (const [name, message] of check.problems) {
      // A problem of the worker's own settings is the worker's (it would not have started).
      if (name in overrides) problems.set(`${prefix}${name}`, [message]);
    }
  }
  return problems;
}

/** A connector's client overrides that have no effect in Sluice, or that no Kafka client knows: a warning each, by key. */
export function clientOverrideWarnings(config: Record<string, string>): Map<string, string> {
  const warnings = new Map<string, string>();
  for (const kind of KINDS) {
    const prefix = OVERRIDE_PREFIXES[kind];
    const overrides = withoutPrefix(config, prefix);
    if (Object.keys(overrides).length === 0) continue;
    const check = checkClientSettings(kind, overrides);
    for (const use of check.noEffect)
      warnings.set(`${prefix}${use.name}`, noEffectWarning({ ...use, name: `${prefix}${use.name}` }));
    for (const name of check.unknown)
      warnings.set(
        `${prefix}${name}`,
        unknownSettingWarning(
          `${prefix}${name}`,
          clientSettings[kind].names().map((n) => `${prefix}${n}`),
        ),
      );
  }
  return warnings;
}

/** The policy's refusals as the error Kafka's worker fails a task with, when a saved config has them; undefined if none. */
export function overridesNotAllowed(
  config: Record<string, string>,
  policy: OverridePolicy,
  type?: "source" | "sink",
): string | undefined {
  const refused = clientKindsOf(type, config).flatMap((kind) =>
    Object.keys(withoutPrefix(config, OVERRIDE_PREFIXES[kind]))
      .filter((name) => !allowed(policy, name))
      .map((name) => `${OVERRIDE_PREFIXES[kind]}${name}`),
  );
  if (refused.length === 0) return undefined;
  return `Client Config Overrides not allowed: the '${policy}' policy does not allow ${refused.map((k) => `'${k}'`).join(", ")} to be overridden in the connector configuration`;
}
