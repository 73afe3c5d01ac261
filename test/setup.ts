// Preloaded by bun test (bunfig.toml): runs once around the whole suite.
import { afterAll, setDefaultTimeout } from "bun:test";
import { stopSharedKafka } from "./fixtures/kafka.ts";
import { stopSharedOpenSearch } from "./fixtures/opensearch.ts";

// Integration tests wait on real brokers with their own deadlines (waitFor); bun's 5 s default
// would kill them, and with them the broker processes they started.
setDefaultTimeout(120_000);

afterAll(async () => {
  await Promise.all([stopSharedKafka(), stopSharedOpenSearch()]);
}, 60_000);
