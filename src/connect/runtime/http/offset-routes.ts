// /connectors/{connector}/offsets: reading, changing and resetting a connector's offsets.
import { Elysia } from "elysia";
import { documented } from "../../../platform/openapi.ts";
import { connectErrors } from "../rest-errors.ts";
import type { Herder } from "../herder/herder.ts";
import { connectorNotFound, fails, Message, ok, Offsets, OffsetsRequest } from "./openapi.ts";
import { JSON_BODY, offsetsRequest } from "./request-bodies.ts";
import { json } from "./respond.ts";

export function offsetRoutes(herder: Herder) {
  return new Elysia()
    .get(
      "/connectors/:connector/offsets",
      async ({ params }) => json(await herder.offsets(params.connector)),
      documented({
        summary: "A connector's offsets",
        responses: { 200: ok("The offsets", Offsets), 404: connectorNotFound },
      }),
    )
    .patch(
      "/connectors/:connector/offsets",
      async ({ params, body }) => {
        const offsets = offsetsRequest(body);
        // Checked before the connector is looked up, as Kafka's resource does.
        if (!offsets || offsets.length === 0)
          throw connectErrors.badRequest("Partitions / offsets need to be provided for an alter offsets request");
        return json({ message: await herder.alterOffsets(params.connector, offsets) });
      },
      {
        ...JSON_BODY,
        ...documented({
          summary: "Changes a stopped connector's offsets",
          body: OffsetsRequest,
          responses: {
            200: ok("Done", Message),
            400: fails("No offsets, or the connector is not stopped"),
            404: connectorNotFound,
          },
        }),
      },
    )
    .delete(
      "/connectors/:connector/offsets",
      async ({ params }) => json({ message: await herder.resetOffsets(params.connector) }),
      documented({
        summary: "Resets a stopped connector's offsets",
        responses: { 200: ok("Done", Message), 400: fails("The connector is not stopped"), 404: connectorNotFound },
      }),
    );
}
