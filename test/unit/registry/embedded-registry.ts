// The registry's rules (RegistryService) over its real store, the _schemas log, on an embedded broker in
// a temp dir: no HTTP in between.
import { RegistryService, type RegistryOptions } from "#src/registry/service.ts";
import { encodeKey } from "#src/registry/store/records.ts";
import { SchemaLog } from "#src/registry/store/schema-log.ts";
import { RegistryState } from "#src/registry/store/state.ts";
import { tempBroker } from "../../fixtures/embedded-broker.ts";

export interface EmbeddedRegistry {
  service: RegistryService;
  /** Stops the log and closes the broker (removing its directory unless one was given). */
  close(): Promise<void>;
}

const DEFAULTS: RegistryOptions = {
  defaultCompatibility: "BACKWARD",
  modeMutability: true,
  maxSchemaBytes: 1 << 20,
  schemaCacheSize: 1000,
};

/** A registry on a new temp dir, or on `dir` (kept on close, so a second registry can reopen it). */
export async function startRegistry(options: Partial<RegistryOptions> = {}, dir?: string): Promise<EmbeddedRegistry> {
  const broker = await tempBroker({}, dir);
  const log = new SchemaLog(broker.broker, new RegistryState(), {
    topic: "_schemas",
    replicationFactor: 1,
    timeoutMs: 5000,
    initTimeoutMs: 5000,
  });
  await log.start();
  return {
    service: new RegistryService(log, { ...DEFAULTS, ...options }),
    close: async () => {
      const stopped = log.stop();
      // The log's reader long-polls for 200 ms and the Broker interface has no wakeup: a NOOP record
      // (which the state skips, as Confluent's reader does) ends the poll at once.
      await broker.broker.produce("_schemas", [{ key: encodeKey({ keytype: "NOOP" }), value: null }]);
      await stopped;
      await broker.close();
    },
  };
}
