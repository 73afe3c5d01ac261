// Kafka clients of connectors whose client overrides (producer.override.security.protocol,
// consumer.override.sasl.*, admin.override.ssl.*, as Kafka Connect's per-connector clients take them)
// give them a Kafka identity of their own: one client per distinct identity on a thread, shared by the
// tasks that use it and closed with the last of them. Other connectors' tasks use the worker's client.
import type { Broker } from "../../../broker/broker.ts";
import { clientSecurity, hasSecurityOverride, overriddenSecurity } from "../../../broker/client-security.ts";
import { createBroker, type BrokerChoice } from "../../../broker/index.ts";
import { ConfigError } from "../../../platform/settings.ts";
import { ConnectException } from "../../api/connector.ts";

const OVERRIDES = ["producer.override.", "consumer.override.", "admin.override."];
/**
 * Where the worker's tokens come from is the worker's to say: a connector (created over REST) that could
 * point its login at any URL, file or credentials handler would make the worker fetch or read it for
 * the connector (Kafka 4 guards the same with org.apache.kafka.sasl.oauthbearer.allowed.urls).
 */
export const WORKER_ONLY = [
  "sasl.oauthbearer.token.endpoint.url",
  "sasl.login.callback.handler.class",
  "sasl.oauthbearer.jwt.retriever.class",
  "sasl.login.class",
];

export interface ClientLease {
  broker: Broker;
  release(): Promise<void>;
}

export class ConnectorClients {
  private readonly clients = new Map<string, { connected: Promise<Broker>; users: number }>();

  /** `choice`: how the worker's task client was made (absent on the embedded broker: no overrides apply). */
  constructor(
    private readonly shared: Broker,
    private readonly choice?: BrokerChoice,
  ) {}

  /** The client for a task of this connector; its release closes an override client nobody else uses. */
  async acquire(connectorConfig: Record<string, string>): Promise<ClientLease> {
    if (!this.choice || !hasSecurityOverride(connectorConfig, OVERRIDES))
      return { broker: this.shared, release: async () => {} };
    const base = this.choice.securitySettings ?? {};
    const securitySettings = overriddenSecurity(base, connectorConfig, OVERRIDES);
    for (const name of WORKER_ONLY) {
      if ((securitySettings[name] ?? "") !== (base[name] ?? "")) {
        const key = OVERRIDES.map((p) => p + name).find((k) => k in connectorConfig) ?? name;
        throw new ConfigError(
          key,
          connectorConfig[key] ?? "",
          `a connector may override its Kafka credentials, not ${name}: that is the worker's (set it in the worker's config)`,
        );
      }
    }
    const security = clientSecurity(securitySettings);
    const key = JSON.stringify(security ?? null);
    let entry = this.clients.get(key);
    if (!entry) {
      const broker = createBroker({
        ...this.choice,
        clientId: `${this.choice.clientId}-override`,
        security,
        securitySettings,
      });
      const connected = broker.connect().then(
        () => broker,
        (err: unknown) => {
          throw new ConnectException(
            `the connector's own Kafka client (its ${OVERRIDES.join(", ")} security settings) could not connect: ${(err as Error).message}`,
            err,
          );
        },
      );
      const created = { connected, users: 0 };
      // A client that cannot connect (bad credentials) is dropped: the next task start tries anew.
      created.connected.catch(() => {
        if (this.clients.get(key) === created) this.clients.delete(key);
        void broker.close();
      });
      this.clients.set(key, (entry = created));
    }
    const used = entry;
    used.users++;
    let broker: Broker;
    try {
      broker = await used.connected;
    } catch (err) {
      used.users--;
      throw err;
    }
    let released = false;
    return {
      broker,
      release: async () => {
        if (released) return;
        released = true;
        if (--used.users > 0) return;
        if (this.clients.get(key) === used) this.clients.delete(key);
        await broker.close();
      },
    };
  }
}
