import { expect, test } from "bun:test";
import { connectionProblem } from "#src/connect/api/connection-check.ts";

const wording = (cause: string) => `Could not connect. ${cause}`;

test("an attempt that succeeds is no problem", async () => {
  expect(await connectionProblem(async () => "connected", wording)).toBeUndefined();
});

test("an attempt that fails is worded from its error", async () => {
  expect(await connectionProblem(() => Promise.reject(new Error("refused")), wording)).toBe(
    "Could not connect. refused",
  );
});

test("an attempt that hangs ends at the timeout with Debezium's message", async () => {
  const started = Date.now();
  expect(await connectionProblem(() => new Promise(() => {}), wording, 50)).toBe(
    "Connection validation timed out after 50 ms",
  );
  expect(Date.now() - started).toBeLessThan(1000);
});
