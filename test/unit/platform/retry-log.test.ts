import { expect, test } from "bun:test";
import pino from "pino";
import { RetryLog } from "#src/platform/retry-log.ts";

function capture() {
  const lines: { level: number; msg: string }[] = [];
  return { lines, log: pino({ level: "debug" }, { write: (l: string) => void lines.push(JSON.parse(l)) }) };
}

test("a short run of failures stays at debug; one WARN once it persists; INFO when it recovers", () => {
  let now = 1_000;
  const { lines, log } = capture();
  const retries = new RetryLog(log, 10_000, () => now);
  retries.failed({ err: "COORDINATOR_NOT_AVAILABLE" }, "group coordinator unreachable");
  now += 4_000;
  retries.failed({ err: "COORDINATOR_NOT_AVAILABLE" }, "group coordinator unreachable");
  expect(lines.map((l) => l.level)).toEqual([20, 20]);
  now += 6_000;
  retries.failed({ err: "COORDINATOR_NOT_AVAILABLE" }, "group coordinator unreachable");
  now += 2_000;
  retries.failed({ err: "COORDINATOR_NOT_AVAILABLE" }, "group coordinator unreachable");
  expect(lines.map((l) => l.level)).toEqual([20, 20, 40, 20]);
  expect(lines[2]!.msg).toBe("group coordinator unreachable (failing for 10 s)");
  retries.succeeded("group coordinator reachable again");
  expect(lines.at(-1)).toMatchObject({ level: 30, msg: "group coordinator reachable again" });
});

test("a success after only short failures says nothing, and the next failure starts a new count", () => {
  let now = 0;
  const { lines, log } = capture();
  const retries = new RetryLog(log, 10_000, () => now);
  retries.failed({}, "not ready");
  now += 9_000;
  retries.succeeded("ready again");
  now += 5_000;
  retries.failed({}, "not ready");
  expect(lines.map((l) => l.level)).toEqual([20, 20]);
});
