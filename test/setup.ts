// Preloaded by bun test (bunfig.toml): runs once around the whole suite.
import { afterAll } from "bun:test";
import { stopSharedKafka } from "./fixtures/kafka.ts";

afterAll(async () => {
  await stopSharedKafka();
}, 60_000);
