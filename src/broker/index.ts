// Chooses the broker: Kafka when bootstrap servers are configured, else the embedded local logs.
import type { Broker } from "./broker.ts";
import type { ClientSecurity } from "./client-security.ts";
import { EmbeddedBroker } from "./embedded/index.ts";
import { KafkaBroker } from "./kafka/index.ts";
import { KafkaBroker as PlatformaticKafkaBroker } from "./kafka-platformatic/index.ts";

export interface BrokerChoice {
  bootstrapServers: string[];
  dataDir: string;
  clientId: string;
  security?: ClientSecurity;
}

export function createBroker(choice: BrokerChoice): Broker {
  const servers = choice.bootstrapServers.map((s) => s.replace(/^[A-Z_]+:\/\//i, "")).filter(Boolean);
  // TEMPORARY (issue 14): both Kafka clients side by side until one is chosen.
  const Kafka = process.env.SLUICE_KAFKA_CLIENT === "platformatic" ? PlatformaticKafkaBroker : KafkaBroker;
  if (servers.length > 0) return new Kafka({ bootstrapServers: servers, clientId: choice.clientId, security: choice.security });
  return new EmbeddedBroker({ dataDir: choice.dataDir });
}
