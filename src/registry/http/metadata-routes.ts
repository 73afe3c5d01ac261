// /v1/metadata: what Confluent's ServerMetadataResource answers: the cluster ids and the version.
import { Elysia } from "elysia";
import { documented } from "../../platform/openapi.ts";
import { COMMIT, VERSION } from "../../platform/version.ts";
import { MetadataIdBody, MetadataVersionBody, ok } from "./openapi.ts";

export interface ServerMetadata {
  /** The Kafka cluster's id (the embedded broker's own when there is no Kafka). */
  kafkaClusterId: () => Promise<string | undefined>;
  /** schema.registry.group.id, Confluent's "schema-registry-cluster". */
  groupId: string;
}

export function metadataRoutes(metadata: ServerMetadata | undefined) {
  return new Elysia()
    .get(
      "/v1/metadata/id",
      async () => {
        const kafkaCluster = await metadata?.kafkaClusterId();
        // Confluent's ServerClusterId: an empty "id" is left out (NON_EMPTY), as is a missing cluster id.
        const clusters = {
          ...(kafkaCluster ? { "kafka-cluster": kafkaCluster } : {}),
          "schema-registry-cluster": metadata?.groupId ?? "schema-registry",
        };
        return { scope: { path: [], clusters } };
      },
      documented({ summary: "The cluster ids", responses: { 200: ok("Confluent's ServerClusterId", MetadataIdBody) } }),
    )
    .get(
      "/v1/metadata/version",
      () => ({ version: VERSION, commitId: COMMIT }),
      documented({
        summary: "The server's version",
        responses: { 200: ok("Version and commit", MetadataVersionBody) },
      }),
    );
}
