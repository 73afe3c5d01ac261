import { expect, test } from "bun:test";
import { unknownConnectorMessage } from "#src/connect/runtime/herder/validation.ts";
import { builtinPlugins } from "#src/catalog.ts";
import { sinkTopicProblems } from "#src/connect/runtime/worker/connector-config.ts";

const plugins = builtinPlugins({ fileConnectors: true });
const PREFIX = "Failed to find any class that implements Connector and which name matches";

test("a misspelt connector class: the installed connectors by class name, and the nearest name", () => {
  const message = unknownConnectorMessage("FileStreamSinc", plugins);
  expect(message).toStartWith(
    `${PREFIX} FileStreamSinc, available connectors are: io.confluent.connect.elasticsearch.ElasticsearchSinkConnector, `,
  );
  expect(message).toContain("org.apache.kafka.connect.file.FileStreamSourceConnector");
  expect(message).toEndWith(". Did you mean FileStreamSink?");
  expect(unknownConnectorMessage("io.debezium.connector.postgresql.PostgresConector", plugins)).toEndWith(
    "Did you mean io.debezium.connector.postgresql.PostgresConnector?",
  );
});

test("a name close to nothing gets no suggestion", () => {
  expect(unknownConnectorMessage("com.example.Nope", plugins)).not.toContain("Did you mean");
});

test("a sink given `topic` gets one error, on topics", async () => {
  expect([...(await sinkTopicProblems({ topic: "lines" }))]).toEqual([
    [
      "topics",
      [
        "Must configure one of topics or topics.regex; this config has topic=lines, which sink connectors do not read: did you mean topics?",
      ],
    ],
  ]);
  expect([...(await sinkTopicProblems({}))].map(([key]) => key)).toEqual(["topics", "topics.regex"]);
});
