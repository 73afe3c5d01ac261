// Kafka's checks of the offsets a user sets for MM2's heartbeat and checkpoint connectors (KIP-875's
// PATCH /connectors/<name>/offsets): their records' source offsets are always {"offset": 0}, and the
// source partitions must carry the keys their tasks write.
import { ConnectException } from "../../connect/api/connector.ts";

/** Kafka's MirrorUtils.validateSourcePartitionString. */
export function validateSourcePartitionString(partition: Record<string, unknown>, key: string): void {
  if (!(key in partition))
    throw new ConnectException(
      `Source partition ${JSON.stringify(partition)} is missing the '${key}' key, which is required`,
    );
  if (typeof partition[key] !== "string")
    throw new ConnectException(
      `Source partition ${JSON.stringify(partition)} has an invalid value ${JSON.stringify(partition[key])} for the '${key}' key, which must be a string`,
    );
}

/** Kafka's MirrorUtils.validateSourceOffset for heartbeats and checkpoints: only offset 0. */
export function validateZeroOffset(partition: Record<string, unknown>, offset: Record<string, unknown>): void {
  if (!("offset" in offset))
    throw new ConnectException(
      `Source offset ${JSON.stringify(offset)} for source partition ${JSON.stringify(partition)} is missing the 'offset' key, which is required`,
    );
  const value = offset.offset;
  if (typeof value !== "number" || !Number.isInteger(value))
    throw new ConnectException(
      `Source offset ${JSON.stringify(offset)} for source partition ${JSON.stringify(partition)} has an invalid value ${JSON.stringify(value)} for the 'offset' key, which must be an integer`,
    );
  if (value !== 0)
    throw new ConnectException(
      `Source offset ${JSON.stringify(offset)} for source partition ${JSON.stringify(partition)} has an invalid value ${value} for the 'offset' key; the only accepted value is 0`,
    );
}

/** Kafka's MirrorUtils.validateSourcePartitionPartition: a non-negative int. */
export function validateSourcePartitionPartition(partition: Record<string, unknown>): void {
  if (!("partition" in partition))
    throw new ConnectException(
      `Source partition ${JSON.stringify(partition)} is missing the 'partition' key, which is required`,
    );
  const value = partition.partition;
  if (typeof value !== "number" || !Number.isInteger(value) || value > 2147483647)
    throw new ConnectException(
      `Source partition ${JSON.stringify(partition)} has an invalid value ${JSON.stringify(value)} for the 'partition' key, which must be an integer`,
    );
  if (value < 0)
    throw new ConnectException(
      `Source partition ${JSON.stringify(partition)} has an invalid value ${value} for the 'partition' key, which cannot be negative`,
    );
}
