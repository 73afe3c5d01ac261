// Kafka clients of connectors whose client overrides (KIP-458: producer.override.*, consumer.override.*,
// admin.override.*, as Kafka Connect's per-connector clients take them) give them a Kafka identity or
// client settings of their own: one client per distinct identity and settings on a thread, shared by
// the tasks that use it and closed with the last of them. Other connectors' tasks use the worker's client.
import type { Broker } from "../../../broker/broker.ts";
import {
  clientSecurity,
  connectorLoginRefusal,
  LOGIN_SOURCE_SETTINGS,
  overriddenSecurity,
} from "../../../broker/client-security.ts";
import { clientLevelTuning, taskClientTuning } from "../../../broker/client-settings.ts";
import { createBroker, type BrokerChoice } from "../../../broker/index.ts";
import { ConfigError } from "../../../platform/settings.ts";
import { ConnectException } from "../../api/connector.ts";
import { overridesNotAllowed, type OverridePolicy } from "./client-overrides.ts";

const OVERRIDES = ["producer.override.", "consumer.override.", "admin.override."];
export interface ClientLease {
  broker: Broker;
  release(): Promise<void>;
}

export class ConnectorClients {
  private readonly clients = new Map<string, { connected: Promise<Broker>; users: number }>();
  /** What the worker's client was made with, as a key (see clientKey). */
  private readonly sharedKey?: string;

  /** `choice`: how the worker's task client was made (absent on the embedded broker: no overrides apply). */
  constructor(
    private readonly shared: Broker,
    private readonly choice?: BrokerChoice,
    private readonly policy: OverridePolicy = "All",
  ) {
    if (choice) this.sharedKey = clientKey(choice.security, choice.clientSettings ?? {}, {});
  }

  /**
   * The client for a task of this connector (of `type`, when known: the clients it uses in Kafka Connect
   * are the ones whose overrides the policy judges); its release closes an override client nobody else uses.
   */
  async acquire(connectorConfig: Record<string, string>, type?: "source" | "sink"): Promise<ClientLease> {
    // A config saved before the worker's policy changed fails its tasks, as Kafka's worker does.
    const notAllowed = overridesNotAllowed(connectorConfig, this.policy, type);
    if (notAllowed) throw new ConnectException(notAllowed);
    if (!this.choice || !OVERRIDES.some((p) => Object.keys(connectorConfig).some((k) => k.startsWith(p))))
      return { broker: this.shared, release: async () => {} };
    const base = this.choice.securitySettings ?? {};
    const securitySettings = overriddenSecurity(base, connectorConfig, OVERRIDES);
    for (const name of LOGIN_SOURCE_SETTINGS) {
      const value = securitySettings[name] ?? "";
      const refused = value !== (base[name] ?? "") && connectorLoginRefusal(name, value);
      if (refused) {
        const key = OVERRIDES.map((p) => p + name).find((k) => k in connectorConfig) ?? name;
        throw new ConfigError(key, connectorConfig[key] ?? "", refused);
      }
    }
    const security = clientSecurity(securitySettings);
    const clientSettings = this.choice.clientSettings ?? {};
    const key = clientKey(security, clientSettings, connectorConfig);
    if (key === this.sharedKey) return { broker: this.shared, release: async () => {} };
    let entry = this.clients.get(key);
    if (!entry) {
      const broker = createBroker({
        ...this.choice,
        clientId: `${this.choice.clientId}-override`,
        security,
        securitySettings,
        tuning: taskClientTuning(clientSettings, connectorConfig),
      });
      const connected = broker.connect().then(
        () => broker,
        (err: unknown) => {
          throw new ConnectException(
            `the connector's own Kafka client (its ${OVERRIDES.join(", ")} settings) could not connect: ${(err as Error).message}`,
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

/**
 * What a task client is made with: its security and the client-level part of its settings (the worker's
 * with the connector's overrides over them; the fetch settings a task passes with each read do not count).
 */
function clientKey(
  security: ReturnType<typeof clientSecurity>,
  workerClientSettings: Record<string, string>,
  connectorConfig: Record<string, string>,
): string {
  return JSON.stringify([security ?? null, clientLevelTuning(taskClientTuning(workerClientSettings, connectorConfig))]);
}
