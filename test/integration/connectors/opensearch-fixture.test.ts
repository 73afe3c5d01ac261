// The OpenSearch node the search sink tests write to. Without Java and Maven it is skipped, except in CI.
import { describe, expect, test } from "bun:test";
import { sharedOpenSearch } from "../../fixtures/opensearch.ts";

describe("OpenSearch fixture", () => {
  test("a green or yellow single node that answers GET / with its version", async () => {
    const node = await sharedOpenSearch();
    const root = (await (await fetch(`${node.url}/`)).json()) as { version: { distribution?: string; number: string } };
    expect(root.version.distribution).toBe("opensearch");
    expect(root.version.number).toBe("2.19.1");
    const health = (await (await fetch(`${node.url}/_cluster/health`)).json()) as {
      number_of_nodes: number;
      status: string;
    };
    expect(health.number_of_nodes).toBe(1);
    expect(["green", "yellow"]).toContain(health.status);
  });
});
