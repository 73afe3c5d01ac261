import { expect, test } from "bun:test";
import { nextTurn, Slices } from "#src/platform/event-loop.ts";

test("nextTurn lets callbacks queued on the event loop run first, which awaiting a resolved promise does not", async () => {
  let ran = false;
  setImmediate(() => (ran = true));
  await Promise.resolve();
  expect(ran).toBe(false);
  await nextTurn();
  expect(ran).toBe(true);
});

test("Slices: due once its time is spent; pause() gives the loop a turn and starts the next slice", async () => {
  expect(new Slices(60_000).due).toBe(false);
  const slices = new Slices(0);
  expect(slices.due).toBe(true);
  let ran = false;
  setImmediate(() => (ran = true));
  await slices.pause();
  expect(ran).toBe(true);
});
