// What dist/sluice shows of its own code: task configs name Kafka's task classes, and a failed
// task's trace names the functions it passed through, not the build's minified names.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../fixtures/binary.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";
import { install, type Install } from "../fixtures/sluice-process.ts";

let sluice: Install;
let url: string;
beforeAll(async () => {
  sluice = install();
  url = `http://127.0.0.1:${freePort()}`;
  await sluice.start(["dev", "--registry-listeners", `http://127.0.0.1:${freePort()}`, "--connect-listeners", url]);
}, 180_000);
afterAll(() => sluice.remove());

async function create(name: string, config: Record<string, string>): Promise<void> {
  const res = await fetch(`${url}/connectors`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, config }),
  });
  expect(res.status).toBe(201);
}

test("GET /connectors/<name>/tasks names Kafka's task class", async () => {
  await create("lines", { "connector.class": "FileStreamSource", file: join(sluice.dir, "lines.txt"), topic: "lines" });
  const tasks = await waitFor("the connector's tasks", async () => {
    const body = (await (await fetch(`${url}/connectors/lines/tasks`)).json()) as { config: Record<string, string> }[];
    return body.length > 0 ? body : undefined;
  });
  expect(tasks[0]!.config["task.class"]).toBe("org.apache.kafka.connect.file.FileStreamSourceTask");
}, 60_000);

test("a failed task's trace names the functions it passed through", async () => {
  // A line that is not a number, cast to int8: the task fails inside the Cast transform's functions.
  await Bun.write(join(sluice.dir, "words.txt"), "abc\n");
  await create("cast", {
    "connector.class": "FileStreamSource",
    file: join(sluice.dir, "words.txt"),
    topic: "words",
    transforms: "cast",
    "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
    "transforms.cast.spec": "int8",
  });
  const trace = await waitFor("the task to fail", async () => {
    const status = (await (await fetch(`${url}/connectors/cast/status`)).json()) as {
      tasks: { state: string; trace?: string }[];
    };
    return status.tasks[0]?.state === "FAILED" ? status.tasks[0].trace! : undefined;
  });
  expect(trace).toContain("at castValueToType (src/connect/transforms/cast.ts:");
  expect(trace).toContain("at javaParseInteger (src/jvm/java-numbers.ts:");
  // Every frame in the sources names a function of the file it points to (a minified name would not be there).
  const frames = [...trace.matchAll(/^\s+at (?:async )?(\S+) \((src\/[^:]+):/gm)].map(([, name, file]) => ({
    name: name!,
    file: file!,
  }));
  expect(frames.length).toBeGreaterThan(3);
  expect(
    frames.filter(
      ({ name, file }) =>
        !new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`).test(readFileSync(join(root, file), "utf8")),
    ),
  ).toEqual([]);
}, 60_000);
