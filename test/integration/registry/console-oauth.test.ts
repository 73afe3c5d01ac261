// The web console of a registry that takes only OAuth bearer tokens, in headless Chromium: the page asks
// for a token (a browser cannot be asked for one as for Basic credentials), then calls the API with it;
// a refused token brings the sign-in back. The page and its bundle are served without credentials, the
// data is not.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openBrowser, type BrowserSession } from "../../fixtures/browser.ts";
import { startOidcProvider, type OidcProvider } from "../../fixtures/oidc-provider.ts";
import {
  registryPlace,
  removePlace,
  startTestRegistry,
  type RegistryPlace,
  type TestRegistry,
} from "../../fixtures/registry.ts";

let provider: OidcProvider;
let place: RegistryPlace;
let registry: TestRegistry;
let browser: BrowserSession | undefined;

beforeAll(async () => {
  provider = startOidcProvider();
  place = await registryPlace("embedded");
  registry = await startTestRegistry(place, {
    "rest.servlet.initializor.classes": "io.confluent.common.security.jetty.initializer.InstallOAuthSecurityHandler",
    "oauthbearer.jwks.endpoint.url": provider.jwksUrl,
    "oauthbearer.expected.issuer": provider.issuer,
  });
  const created = await fetch(`${registry.url}/subjects/console-value/versions`, {
    method: "POST",
    headers: { authorization: `Bearer ${provider.sign()}`, "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schema: '"string"' }),
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await registry?.stop();
  provider?.stop();
  if (place) removePlace(place);
});

test("the page and config.json need no credentials; the API still does", async () => {
  expect((await fetch(`${registry.url}/ui/`)).status).toBe(200);
  expect(await (await fetch(`${registry.url}/ui/config.json`)).json()).toMatchObject({
    service: "registry",
    tokenLogin: true,
  });
  expect((await fetch(`${registry.url}/subjects`)).status).toBe(401);
});

test("signing in with a token shows the subjects as its principal; a refused token brings the sign-in back", async () => {
  browser = await openBrowser();
  const page = await browser.page();
  await page.goto(`${registry.url}/ui/`);
  await page.getByTestId("token").fill(provider.sign({ sub: "console-user" }));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("user").filter({ hasText: "console-user" }).waitFor();
  await page.getByText("console-value").first().waitFor();

  const expired = await browser.page();
  await expired.goto(`${registry.url}/ui/`);
  await expired.getByTestId("token").fill(provider.sign({ sub: "console-user", expiresIn: -3600 }));
  await expired.getByRole("button", { name: "Sign in" }).click();
  // The refused token is dropped and the sign-in shown again.
  await expired.waitForFunction(() => sessionStorage.getItem("sluice.token") === null);
  await expired.getByTestId("token").waitFor();
  expect(await expired.getByTestId("user").count()).toBe(0);
});
