// Builds a connector's transform chain from its config. Until the transforms module is wired in,
// connectors without `transforms` pass records through unchanged and others are refused.
import type { ConnectRecord } from "../plugins/records.ts";
import type { TransformFactory } from "./worker.ts";

export const transformFactory: TransformFactory = (config) => {
  if ((config.transforms ?? "").trim()) throw new Error("transforms are not available yet");
  return <R extends ConnectRecord>(record: R) => record;
};
