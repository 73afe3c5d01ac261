// Chooses the broker: Kafka when bootstrap servers are configured, else the embedded local logs.
import type { Broker } from "./broker.ts";
import type { ClientSecurity } from "./client-security.ts";
import { EmbeddedBroker } from "./embedded/index.ts";
import { KafkaBroker } from "./kafka/index.ts";

export interface BrokerChoice {
  bootstrapServers: string[];
  dataDir: string;
  clientId: string;
  security?: ClientSecurity;
  /** The settings `security` was read from (a connector's client overrides apply over them). */
  securitySettings?: Record<string, string>;
}

export function createBroker(choice: BrokerChoice): Broker {
  const servers = choice.bootstrapServers.map((s) => s.replace(/^[A-Z_]+:\/\//i, "")).filter(Boolean);
  if (servers.length > 0)
    return new KafkaBroker({ bootstrapServers: servers, clientId: choice.clientId, security: choice.security });
  return new EmbeddedBroker({ dataDir: choice.dataDir });
}
