// The settings all three MirrorMaker 2 connectors share (Kafka's MirrorConnectorConfig), and the Kafka
// clients a connector or task makes of them for the source and target clusters. The clients take their
// settings as Kafka's MM2 gathers them: `source.cluster.`/`target.cluster.` connection and security
// settings, then the `producer.`/`consumer.`/`admin.` ones, then `source.consumer.`, `target.admin.` …
// Sluice's Kafka client produces, consumes and administers at once, so one client per cluster serves
// every role; the roles must agree on the connection and security settings.
import type { Broker } from "../../broker/broker.ts";
import { clientSecurity, connectorLoginRefusal } from "../../broker/client-security.ts";
import { adminTuning, consumerTuning, producerTuning, type ClientTuning } from "../../broker/client-settings.ts";
import { createBroker } from "../../broker/index.ts";
import {
  ConfigError,
  ignored,
  refused,
  SettingsDefinition,
  type ParsedSettings,
  type Setting,
} from "../../platform/settings.ts";
import {
  DEFAULT_REPLICATION_POLICY,
  REPLICATION_POLICY_CLASSES,
  replicationPolicy,
  type ReplicationPolicy,
} from "./replication-policy.ts";

export type ClusterSide = "source" | "target";
export type ClientRole = "producer" | "consumer" | "admin";

const CONNECTION_DOC = (side: ClusterSide) =>
  `Connection and security settings of the ${side} cluster's clients (bootstrap.servers, security.protocol, ssl.*, sasl.*).`;

/** Prefixes whose settings go to the clients, not to the connector (passed through without a warning). */
export const MIRROR_CLIENT_PREFIXES = [
  "source.cluster.",
  "target.cluster.",
  "producer.",
  "consumer.",
  "admin.",
  "source.producer.",
  "source.consumer.",
  "source.admin.",
  "target.producer.",
  "target.consumer.",
  "target.admin.",
];

/** The MM2 client settings a connector may not give its clusters' clients (see connectorLoginRefusal), each with why. */
export function refusedLoginSettings(props: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(props)) {
    const prefix = MIRROR_CLIENT_PREFIXES.find((p) => key.startsWith(p));
    const refused = prefix === undefined ? undefined : connectorLoginRefusal(key.slice(prefix.length), value);
    if (refused) out.set(key, refused);
  }
  return out;
}

/** Kafka's MirrorConnectorConfig, the settings every MM2 connector has. */
export const mirrorConnectorSettings: Setting[] = [
  { name: "enabled", type: "boolean", default: true, importance: "low", doc: "Whether to replicate source->target." },
  {
    name: "source.cluster.alias",
    type: "string",
    required: true,
    importance: "high",
    doc: "Alias of source cluster",
  },
  {
    name: "target.cluster.alias",
    type: "string",
    default: "target",
    importance: "high",
    doc: "Alias of target cluster. Used in metrics reporting.",
  },
  {
    name: "admin.timeout.ms",
    type: "long",
    default: 60000,
    importance: "low",
    doc: "Timeout for administrative tasks, e.g. detecting new topics.",
  },
  {
    name: "replication.policy.class",
    type: "class",
    default: DEFAULT_REPLICATION_POLICY,
    importance: "low",
    doc: `Class which defines the remote topic naming convention. One of ${REPLICATION_POLICY_CLASSES.join(", ")}.`,
    validate: (v) =>
      REPLICATION_POLICY_CLASSES.includes(String(v).trim())
        ? undefined
        : `Sluice offers Kafka's ${REPLICATION_POLICY_CLASSES.join(" and ")}; other replication policies are Java classes it cannot load`,
  },
  {
    name: "replication.policy.separator",
    type: "string",
    default: ".",
    importance: "low",
    doc: "Separator used in remote topic naming convention.",
  },
  {
    name: "replication.policy.internal.topic.separator.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to use replication.policy.separator to control the names of topics used for checkpoints and offset syncs. Set false to keep the '.' of MirrorMaker 2 versions that did not allow customizing these names.",
  },
  {
    name: "source.cluster.bootstrap.servers",
    type: "list",
    importance: "high",
    doc: CONNECTION_DOC("source"),
  },
  {
    name: "target.cluster.bootstrap.servers",
    type: "list",
    importance: "high",
    doc: CONNECTION_DOC("target"),
  },
  refused(
    "forwarding.admin.class",
    "topics and configs are managed through Sluice's Kafka client; a Java ForwardingAdmin cannot be loaded",
    ["org.apache.kafka.clients.admin.ForwardingAdmin"],
    { type: "class" },
  ),
  ignored("metric.reporters", "Sluice reports no JMX metrics; the worker's metrics are served at /metrics", {
    type: "list",
  }),
];

/** `offset-syncs.topic.location`: shared by MirrorSourceConnector (writes) and MirrorCheckpointConnector (reads). */
export const offsetSyncsTopicLocationSetting: Setting = {
  name: "offset-syncs.topic.location",
  type: "string",
  default: "source",
  oneOf: ["source", "target"],
  importance: "low",
  doc: "The location (source/target) of the offset-syncs topic.",
};

/** An MM2 connector's definition: the shared settings and its own. */
export function mirrorSettingsDefinition(own: Setting[]): SettingsDefinition {
  return new SettingsDefinition([...mirrorConnectorSettings, ...own], MIRROR_CLIENT_PREFIXES);
}

/** What every MM2 connector and task reads of its settings. */
export class MirrorConfig {
  readonly values: ParsedSettings;
  readonly sourceClusterAlias: string;
  readonly targetClusterAlias: string;
  readonly policy: ReplicationPolicy;
  readonly adminTimeoutMs: number;

  constructor(
    readonly definition: SettingsDefinition,
    readonly props: Record<string, string>,
  ) {
    this.values = definition.parse(props).values;
    const [refusedKey, why] = [...refusedLoginSettings(props)][0] ?? [];
    if (refusedKey !== undefined) throw new ConfigError(refusedKey, props[refusedKey]!, why!);
    this.sourceClusterAlias = this.values.string("source.cluster.alias");
    this.targetClusterAlias = this.values.string("target.cluster.alias");
    this.adminTimeoutMs = this.values.int("admin.timeout.ms");
    // As Kafka configures the policy: the separator and its internal-topic switch only when given.
    const separatorGiven = "replication.policy.separator" in props;
    this.policy = replicationPolicy(this.values.string("replication.policy.class"), {
      ...(separatorGiven ? { separator: props["replication.policy.separator"] } : {}),
      internalTopicSeparatorEnabled: this.values.boolean("replication.policy.internal.topic.separator.enabled"),
      sourceClusterAlias: this.sourceClusterAlias,
    });
  }

  /** `<source>-><target>|<connector name>`, the start of Kafka's MM2 client ids. */
  entityLabel(): string {
    return `${this.sourceClusterAlias}->${this.targetClusterAlias}|${this.props.name ?? ""}`;
  }

  /** The settings of one role's client on one cluster (mirrorClientProps). */
  clientProps(side: ClusterSide, role: ClientRole): Record<string, string> {
    return mirrorClientProps(this.props, side, role);
  }

  /**
   * One Kafka client for a cluster, serving the roles given (its task's consumer and admin, say), with
   * client id `<entityLabel>|<what>`. Connects it before returning it.
   */
  async connectClient(side: ClusterSide, roles: ClientRole[], what: string): Promise<Broker> {
    const client = this.client(side, roles, what);
    try {
      await client.connect();
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return client;
  }

  /** The client connectClient connects (not yet connected). */
  client(side: ClusterSide, roles: ClientRole[], what: string): Broker {
    const byRole = new Map(roles.map((role) => [role, this.clientProps(side, role)]));
    // Connection and security settings: one client, so every role must be given the same.
    let connection: Record<string, string> | undefined;
    let firstRole: ClientRole | undefined;
    for (const [role, props] of byRole) {
      const mine = Object.fromEntries(Object.entries(props).filter(([name]) => isConnectionSetting(name)));
      if (connection === undefined) {
        connection = mine;
        firstRole = role;
        continue;
      }
      for (const name of new Set([...Object.keys(connection), ...Object.keys(mine)])) {
        if (connection[name] !== mine[name])
          throw new ConfigError(
            `${side}.${role}.${name}`,
            name.includes("password") || name === "sasl.jaas.config" ? "[hidden]" : (mine[name] ?? ""),
            `differs from the ${firstRole}'s ${name}; Sluice's clients of the ${side} cluster produce, consume and administer through one connection, which needs one value`,
          );
      }
    }
    connection ??= {};
    const servers = (connection["bootstrap.servers"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (servers.length === 0)
      throw new ConfigError(
        `${side}.cluster.bootstrap.servers`,
        "",
        "the MirrorMaker 2 connectors need the address of each cluster",
      );
    const clientId = `${this.entityLabel()}|${what}`;
    const tuningOf = (role: ClientRole) => {
      const props = Object.fromEntries(
        Object.entries(byRole.get(role) ?? this.clientProps(side, role)).filter(([name]) => !isConnectionSetting(name)),
      );
      props["client.id"] = props["client.id"] ? `${props["client.id"]}|${clientId}` : clientId;
      return props;
    };
    const tuning: ClientTuning = {
      producer: producerTuning(tuningOf("producer")),
      consumer: consumerTuning(tuningOf("consumer")),
      admin: adminTuning(tuningOf("admin")),
    };
    const securitySettings = Object.fromEntries(
      Object.entries(connection).filter(([name]) => name !== "bootstrap.servers"),
    );
    return createBroker({
      bootstrapServers: servers,
      dataDir: "",
      clientId,
      security: clientSecurity(securitySettings),
      securitySettings,
      tuning,
    });
  }
}

/**
 * The settings of one role's client on one cluster, as Kafka's MM2 gathers them: the cluster's
 * connection and security settings, then `<role>.`, then `<side>.<role>.`; a consumer never
 * commits on its own and starts at the earliest offset when it has no position.
 */
export function mirrorClientProps(
  props: Record<string, string>,
  side: ClusterSide,
  role: ClientRole,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) {
    if (!key.startsWith(`${side}.cluster.`)) continue;
    const name = key.slice(`${side}.cluster.`.length);
    if (isConnectionSetting(name)) out[name] = value;
  }
  for (const prefix of [`${role}.`, `${side}.${role}.`]) {
    for (const [key, value] of Object.entries(props)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  }
  if (role === "consumer") {
    out["enable.auto.commit"] = "false";
    out["auto.offset.reset"] ??= "earliest";
  }
  return out;
}

/**
 * A validation problem for each cluster of `sides` whose clients would have no bootstrap servers. Kafka's
 * connectors fail at start without them; Sluice refuses such a configuration when it is written.
 */
export function missingClusterAddresses(props: Record<string, string>, sides: ClusterSide[]): [string, string][] {
  return sides
    .filter((side) =>
      (["admin", "consumer", "producer"] as const).every(
        (role) => !mirrorClientProps(props, side, role)["bootstrap.servers"]?.trim(),
      ),
    )
    .map((side) => [`${side}.cluster.bootstrap.servers`, `the ${side} cluster's address is required`]);
}

/** Kafka's MirrorClientConfig client settings: the connection and its security. */
function isConnectionSetting(name: string): boolean {
  return (
    name === "bootstrap.servers" || name === "security.protocol" || name.startsWith("ssl.") || name.startsWith("sasl.")
  );
}
