// What Sluice workers tell each other through the group coordinator (protocol type "connect"). The
// fields are those of Kafka Connect's "compatible" protocol (URL, config offset, current allocation;
// leader, leader URL, assignment, revocations, delay), in JSON under the protocol name "sluice-1":
// a Java worker joining the same group is refused by the coordinator (no common protocol) rather than
// misreading it.
import type { Allocation } from "./assignor.ts";

export const PROTOCOL_TYPE = "connect";
export const PROTOCOL_NAME = "sluice-1";

export interface WorkerMetadata {
  url: string;
  /** host:port, as statuses show it. */
  workerId: string;
  configOffset: number;
  allocation: Allocation;
}

export interface WorkerAssignment {
  leader: string;
  leaderUrl: string;
  configOffset: number;
  assigned: Allocation;
  revoked: Allocation;
  delayMs: number;
  /** Every member's REST URL by worker id, so any worker can reach the owner of a task. */
  urls: Record<string, string>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeMetadata = (m: WorkerMetadata) => encoder.encode(JSON.stringify({ version: 1, ...m }));
export const decodeMetadata = (bytes: Uint8Array) => JSON.parse(decoder.decode(bytes)) as WorkerMetadata;
export const encodeAssignment = (a: WorkerAssignment) => encoder.encode(JSON.stringify({ version: 1, ...a }));
export const decodeAssignment = (bytes: Uint8Array) => JSON.parse(decoder.decode(bytes)) as WorkerAssignment;
