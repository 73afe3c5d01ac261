// An MM2 configuration without a cluster's address is refused when written (Kafka's connectors only fail at
// start): each connector asks for the clusters it uses.
import { describe, expect, test } from "bun:test";
import { MirrorCheckpointConnector } from "#src/connectors/mirror/checkpoint-connector.ts";
import { MirrorHeartbeatConnector } from "#src/connectors/mirror/heartbeat.ts";
import { missingClusterAddresses } from "#src/connectors/mirror/mirror-config.ts";
import { MirrorSourceConnector } from "#src/connectors/mirror/source-connector.ts";

const base = { "source.cluster.alias": "a", "target.cluster.alias": "b" };
const both = {
  ...base,
  "source.cluster.bootstrap.servers": "a:9092",
  "target.cluster.bootstrap.servers": "b:9092",
};

describe("the clusters' addresses", () => {
  test("a side without bootstrap servers in any of its clients is named; a role's own servers count", () => {
    expect(missingClusterAddresses(base, ["source", "target"])).toEqual([
      ["source.cluster.bootstrap.servers", "the source cluster's address is required"],
      ["target.cluster.bootstrap.servers", "the target cluster's address is required"],
    ]);
    expect(missingClusterAddresses({ ...base, "source.admin.bootstrap.servers": "a:9092" }, ["source"])).toEqual([]);
    expect(missingClusterAddresses({ ...base, "target.cluster.bootstrap.servers": " " }, ["target"])).toHaveLength(1);
  });

  test("the source and checkpoint connectors need both clusters, the heartbeat connector the target", async () => {
    for (const connector of [new MirrorSourceConnector(), new MirrorCheckpointConnector()]) {
      expect([...(await connector.validate(base)).keys()]).toEqual([
        "source.cluster.bootstrap.servers",
        "target.cluster.bootstrap.servers",
      ]);
      expect([...(await connector.validate(both)).keys()]).toEqual([]);
    }
    const heartbeat = new MirrorHeartbeatConnector();
    expect([...(await heartbeat.validate(base)).keys()]).toEqual(["target.cluster.bootstrap.servers"]);
    expect([...(await heartbeat.validate({ ...base, "target.cluster.bootstrap.servers": "b:9092" })).keys()]).toEqual(
      [],
    );
  });
});
