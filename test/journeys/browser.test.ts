// The browser fixture the console's tests stand on: Debian's Chromium, headless, driven by playwright-core.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openBrowser, type BrowserSession } from "../fixtures/browser.ts";

let browser: BrowserSession;
beforeAll(async () => {
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

test("opens a page and reads what it renders", async () => {
  const page = await browser.page();
  await page.goto("data:text/html,<h1>x</h1>");
  expect(await page.locator("h1").textContent()).toBe("x");
});

test("takes a screenshot as PNG", async () => {
  const page = await browser.page();
  await page.goto("data:text/html,<h1>x</h1>");
  const png = await page.screenshot();
  expect([...png.subarray(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
});
