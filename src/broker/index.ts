// Chooses the broker: Kafka when bootstrap servers are configured, else the embedded local logs.
import type { Broker } from "./broker.ts";
import { EmbeddedBroker } from "./embedded/index.ts";
import { KafkaBroker, type KafkaBrokerOptions } from "./kafka/index.ts";

export interface BrokerChoice {
  bootstrapServers: string[];
  dataDir: string;
  clientId: string;
  kafka?: KafkaBrokerOptions["client"];
}

export function createBroker(choice: BrokerChoice): Broker {
  const servers = choice.bootstrapServers.map((s) => s.replace(/^[A-Z_]+:\/\//i, "")).filter(Boolean);
  if (servers.length > 0) return new KafkaBroker({ bootstrapServers: servers, clientId: choice.clientId, client: choice.kafka });
  return new EmbeddedBroker({ dataDir: choice.dataDir });
}
