// The console walked in a browser as a person uses it (subjects, a diff, a draft refused then registered,
// a lookup by id, a connector created from the generated form and its chart, pause/resume/stop/offsets,
// the API reference) against any registry and connect pair: `sluice dev` (console.test.ts) and three
// registries with three workers on Kafka (console-cluster.test.ts).
import { expect } from "bun:test";
import { saveScreenshot, type BrowserSession, type Page } from "../fixtures/browser.ts";

export interface ConsoleUrls {
  registry: string;
  connect: string;
}

const order = (fields: object[]) => JSON.stringify({ type: "record", name: "Order", fields });
export const V1 = order([{ name: "id", type: "long" }]);
export const V2 = order([
  { name: "id", type: "long" },
  { name: "note", type: "string", default: "" },
]);

export async function call<T = unknown>(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
  tls?: { ca: string },
): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    ...(tls ? { tls } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Resolves once the page's function returns true (playwright polls it: no sleeps). */
export const until = (page: Page, fn: string, timeout = 30000) => page.waitForFunction(fn, undefined, { timeout });

/** The subjects the walk browses: orders-value (two Avro versions), a Protobuf and a JSON Schema subject. */
export async function seedSubjects(registry: string): Promise<void> {
  await call(`${registry}/subjects/orders-value/versions`, "POST", { schema: V1 });
  await call(`${registry}/subjects/orders-value/versions`, "POST", { schema: V2 });
  await call(`${registry}/subjects/customers-value/versions`, "POST", {
    schemaType: "PROTOBUF",
    schema:
      'syntax = "proto3";\npackage shop;\n\n// Who buys.\nmessage Customer {\n  string name = 1;\n  int32 age = 2;\n}\n',
  });
  await call(`${registry}/subjects/clicks-value/versions`, "POST", {
    schemaType: "JSON",
    schema: JSON.stringify({ type: "object", properties: { url: { type: "string" } } }),
  });
}

/** Where the walk's screenshots go: docs/console/ for the walk the README shows (sluice dev), nowhere for others. */
type Shoot = (page: Page, name: string) => Promise<void>;
export const screenshots: Shoot = async (page, name) => {
  await saveScreenshot(page, name);
};
export const noScreenshots: Shoot = async () => {};

/** Browse subjects, diff two versions, check a draft and see why it is incompatible, register a fixed one. */
export async function walkSubjects(browser: BrowserSession, { registry }: ConsoleUrls, shoot: Shoot): Promise<void> {
  const page = await browser.page();
  await page.goto(`${registry}/ui/`);
  await page.getByRole("link", { name: "customers-value" }).waitFor();
  await shoot(page, "subjects");

  await page.getByRole("link", { name: "orders-value" }).click();
  // Two versions: the diff compares the last two, the added field marked on the right.
  await page.locator("tr.d-added").first().waitFor();
  expect(await page.locator("tr.d-added .right").allTextContents()).toContain('      "name": "note",');
  await shoot(page, "subject");
  await page.getByLabel("From version").selectOption("2");
  await page.getByLabel("To version").selectOption("1");
  await page.locator("tr.d-removed").first().waitFor();
  await page.getByLabel("Compatibility").selectOption("FULL");
  await page.getByRole("button", { name: "Set compatibility" }).click();
  await page.locator("[data-testid=level]", { hasText: "FULL" }).waitFor();
  expect(await call(`${registry}/config/orders-value`, "GET")).toEqual({ compatibilityLevel: "FULL" });

  await page.getByRole("link", { name: "New version…" }).click();
  const editor = page.locator("textarea[name=schema]");
  await until(page, `document.querySelector("textarea[name=schema]")?.value.includes('"note"')`);
  await editor.fill(
    JSON.stringify(
      JSON.parse(
        order([
          { name: "id", type: "string" },
          { name: "note", type: "string", default: "" },
        ]),
      ),
      null,
      2,
    ),
  );
  await page.getByRole("button", { name: "Check compatibility" }).click();
  const noted = page.locator(".line.noted").first();
  await noted.waitFor();
  await page.getByText("Incompatible:").scrollIntoViewIfNeeded();
  // The reason sits under the line it is about: the field whose type changed.
  expect(await noted.textContent()).toContain('"type": "string"');
  expect(await noted.locator(".note").allTextContents()).toContainEqual(expect.stringContaining("TYPE_MISMATCH"));
  // And what would make it compatible.
  expect(await page.getByTestId("fixes").textContent()).toContain(
    "Keep the type the field had (reader type: STRING not compatible with writer type: LONG)",
  );
  await shoot(page, "draft");

  await editor.fill(
    JSON.stringify(
      JSON.parse(
        order([
          { name: "id", type: "long" },
          { name: "note", type: "string", default: "" },
          { name: "total", type: "double", default: 0 },
        ]),
      ),
      null,
      2,
    ),
  );
  await page.getByRole("button", { name: "Check compatibility" }).click();
  await page.getByText("Compatible with the subject.").waitFor();
  await page.getByRole("button", { name: "Register" }).click();
  await page.getByText("Registered as schema").waitFor();
  expect(await call(`${registry}/subjects/orders-value/versions`, "GET")).toEqual([1, 2, 3]);
}

/** The schema lookup by id lists the subject versions that use it. */
export async function walkLookup(browser: BrowserSession, { registry }: ConsoleUrls, _shoot: Shoot): Promise<void> {
  const page = await browser.page();
  await page.goto(`${registry}/ui/#/schemas/1`);
  await page.getByRole("link", { name: "orders-value v1" }).waitFor();
}

/** Create a connector from the form, fix its validation error, see its chart move, pause and resume it. */
export async function walkConnector(
  browser: BrowserSession,
  { registry, connect }: ConsoleUrls,
  shoot: Shoot,
): Promise<void> {
  const page = await browser.page();
  // connect's own console: the registry is reached through its proxy.
  await page.goto(`${connect}/ui/#/new-connector`);
  await page.locator("input[name=name]").fill("numbers");
  await page.locator("select[name='connector.class']").selectOption("io.sluice.examples.SequenceSourceConnector");
  await page.locator("[data-field=topic] input").waitFor();
  await page.getByRole("button", { name: "Create" }).click();
  // topic is required: the validate endpoint's error is shown on its field, nothing is created.
  await page.locator("[data-field=topic] .field-error").waitFor();
  await page.locator("h1").scrollIntoViewIfNeeded();
  await shoot(page, "connector-form");
  await page.locator("[data-field=topic] input").fill("numbers");
  await page.locator("[data-field='tasks.max'] input").fill("2");
  await page.locator("[data-field='sequence.interval.ms'] input").fill("20");
  await page.getByRole("button", { name: "Create" }).click();

  await page.locator("h1 .state-running").waitFor();
  // The chart moves: samples arrive and the latest rate is above zero.
  await until(
    page,
    `Number(document.querySelector(".charts .spark")?.dataset.last) > 0 && !!document.querySelector(".charts .spark polyline")`,
  );
  await page.locator("td .state-running").nth(1).waitFor();
  await shoot(page, "connector");

  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await page.locator("h1 .state-paused").waitFor();
  expect(
    (await call<{ connector: { state: string } }>(`${connect}/connectors/numbers/status`, "GET")).connector.state,
  ).toBe("PAUSED");
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await page.locator("h1 .state-running").waitFor();
  // Stopped, its offsets can be edited or reset.
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await page.locator("h1 .state-stopped").waitFor();
  await page.locator("textarea[name=offsets]").waitFor();
  await page.getByRole("button", { name: "Reset offsets" }).click();
  await page.getByRole("button", { name: "Yes, reset offsets" }).click();
  await page.getByRole("button", { name: "Reset offsets" }).waitFor();
  expect(await page.getByRole("alert").count()).toBe(0);
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await page.locator("h1 .state-running").waitFor();

  await page.goto(`${connect}/ui/#/connectors`);
  await page.locator("[data-connector=numbers] .task.state-running").nth(1).waitFor();
  await shoot(page, "connectors");
  await page.goto(`${registry}/ui/#/cluster`);
  await page.locator("[data-chart=numbers] polyline").waitFor();
}

/** The rendered API reference and the plugin docs. */
export async function walkReference(browser: BrowserSession, { registry }: ConsoleUrls, shoot: Shoot): Promise<void> {
  const page = await browser.page();
  await page.goto(`${registry}/ui/#/plugins/io.sluice.examples.SequenceSourceConnector`);
  await page.getByText("Numbers per task; 0 = no end.").waitFor();
  await page.goto(`${registry}/ui/#/api/registry`);
  await page.locator(".operation summary", { hasText: "/subjects/{subject}/versions" }).first().click();
  await page.locator(".operation[open] table").first().waitFor();
  await shoot(page, "api-reference");
  // connect's document, through the registry's proxy.
  await page.goto(`${registry}/ui/#/api/connect`);
  await page.locator(".operation summary", { hasText: "/connectors/{connector}/offsets" }).first().waitFor();
}
