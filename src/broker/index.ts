// Chooses the broker: Kafka when bootstrap servers are configured, else the embedded local logs.
import type { Broker } from "./broker.ts";
import type { ClientSecurity } from "./client-security.ts";
import type { ClientTuning } from "./client-settings.ts";
import { EmbeddedBroker } from "./embedded/index.ts";
import { KafkaBroker } from "./kafka/index.ts";

export interface BrokerChoice {
  bootstrapServers: string[];
  dataDir: string;
  clientId: string;
  security?: ClientSecurity;
  /** The settings `security` was read from (a connector's client overrides apply over them). */
  securitySettings?: Record<string, string>;
  /** Kafka client settings (client-settings.ts); absent: Kafka's defaults. */
  tuning?: ClientTuning;
  /** The settings `tuning` was read from: the worker's `producer.`, `consumer.` and `admin.` ones (a connector's overrides apply over them). */
  clientSettings?: Record<string, string>;
}

export function createBroker(choice: BrokerChoice): Broker {
  const servers = choice.bootstrapServers.map((s) => s.replace(/^[A-Z_]+:\/\//i, "")).filter(Boolean);
  if (servers.length > 0)
    return new KafkaBroker({
      bootstrapServers: servers,
      clientId: choice.clientId,
      security: choice.security,
      tuning: choice.tuning,
    });
  return new EmbeddedBroker({ dataDir: choice.dataDir });
}
