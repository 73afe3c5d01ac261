// The .properties files the connect benchmarks hand to both sides, Sluice and Apache Kafka Connect.
import { join } from "node:path";

export const properties = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n") + "\n";

/** A standalone worker's worker.properties as Kafka's sample file has it: offsets in `dir`, flushed every 10 s. */
export function standaloneWorkerProperties(
  worker: { bootstrap: string; port: number; dir: string; converter: string },
  extra: Record<string, string> = {},
): string {
  return properties({
    "bootstrap.servers": worker.bootstrap,
    listeners: `http://127.0.0.1:${worker.port}`,
    "key.converter": worker.converter,
    "value.converter": worker.converter,
    "offset.storage.file.filename": join(worker.dir, "connect.offsets"),
    "offset.flush.interval.ms": "10000",
    ...extra,
  });
}

/**
 * A distributed worker's worker.properties as Kafka's sample connect-distributed.properties has it, for one
 * broker: its own group and internal topics (replication factor 1), offsets flushed every 10 s.
 */
export function distributedWorkerProperties(
  worker: { bootstrap: string; port: number; group: string; converter: string },
  extra: Record<string, string> = {},
): string {
  return properties({
    "bootstrap.servers": worker.bootstrap,
    listeners: `http://127.0.0.1:${worker.port}`,
    "group.id": worker.group,
    "key.converter": worker.converter,
    "value.converter": worker.converter,
    "config.storage.topic": `${worker.group}-configs`,
    "offset.storage.topic": `${worker.group}-offsets`,
    "status.storage.topic": `${worker.group}-status`,
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "offset.storage.partitions": "5",
    "offset.flush.interval.ms": "10000",
    ...extra,
  });
}
