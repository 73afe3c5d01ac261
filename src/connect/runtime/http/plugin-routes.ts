// /connector-plugins: the plugins installed, their config definitions and config validation.
import { Elysia, t } from "elysia";
import { documented } from "../../../platform/openapi.ts";
import type { SettingsDefinition } from "../../../platform/settings.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import { configKeyInfos } from "../herder/config-infos.ts";
import type { Herder } from "../herder/herder.ts";
import { UnknownConnectorClass } from "../herder/validation.ts";
import { connectorFrameworkDefinition } from "../worker/connector-config.ts";
import { ConfigRequest, fails, ok, PluginConfig, Plugins, ValidationResult } from "./openapi.ts";
import { configMap, JSON_BODY } from "./request-bodies.ts";
import { json } from "./respond.ts";

/** Kafka's check that a validate request's connector.class is the plugin of the URL. */
const stripConnector = (name: string) => (name.endsWith("Connector") ? name.slice(0, -"Connector".length) : name);

const nonConnectorTypes = ["transformation", "predicate", "converter", "header_converter"] as const;

export function pluginRoutes(herder: Herder) {
  const plugins = herder.plugins();
  return new Elysia()
    .get(
      "/connector-plugins",
      ({ query }) => {
        const types =
          query.connectorsOnly === "false"
            ? (["source", "sink", ...nonConnectorTypes] as const)
            : (["source", "sink"] as const);
        const list = plugins
          .list(...types)
          .map((p) => ({ class: p.className, type: p.type, ...(p.version ? { version: p.version } : {}) }))
          .sort((a, b) => (a.class < b.class ? -1 : a.class > b.class ? 1 : 0));
        return json(list);
      },
      {
        query: t.Object({
          connectorsOnly: t.Optional(
            t.String({ description: '"false" lists transformations, predicates and converters too' }),
          ),
        }),
        ...documented({ summary: "The plugins installed", responses: { 200: ok("Plugins", Plugins) } }),
      },
    )
    .get(
      "/connector-plugins/:plugin/config",
      ({ params }) => {
        const plugin = plugins.find(params.plugin);
        if (!plugin) throw connectErrors.notFound(`Unknown plugin ${params.plugin}.`);
        const own = (plugin.create() as { config?: () => SettingsDefinition }).config?.();
        const framework =
          plugin.type === "sink" || plugin.type === "source"
            ? [connectorFrameworkDefinition(plugin.type, plugin.version)]
            : [];
        // The plugin's own keys first, then the framework's, as Kafka lists them.
        return json(configKeyInfos([...(own ? [own] : []), ...framework]));
      },
      documented({
        summary: "A plugin's config definitions",
        responses: { 200: ok("Config keys", PluginConfig), 404: fails("Unknown plugin") },
      }),
    )
    .put(
      "/connector-plugins/:plugin/config/validate",
      async ({ params, body }) => {
        const config = configMap(body);
        const included = config["connector.class"];
        if (included != null && !stripConnector(included).endsWith(stripConnector(params.plugin))) {
          throw connectErrors.badRequest(
            `Included connector type ${included} does not match request type ${params.plugin}`,
          );
        }
        try {
          return json(await herder.validate(config as Record<string, string>));
        } catch (err) {
          // Kafka runs validation through a future: its failures come back wrapped, naming the exception
          // (Kafka answers 500; Sluice 400, as the request is what is wrong).
          if (err instanceof ConnectRestError && err.status === 400) {
            const cause =
              err instanceof UnknownConnectorClass ? "org.apache.kafka.connect.errors.ConnectException: " : "";
            throw new ConnectRestError(
              400,
              `org.apache.kafka.connect.runtime.rest.errors.BadRequestException: ${cause}${err.message}`,
            );
          }
          throw err;
        }
      },
      {
        ...JSON_BODY,
        ...documented({
          summary: "Validates a connector config",
          body: ConfigRequest,
          responses: {
            200: ok("Each key's value and errors", ValidationResult),
            400: fails("The config names another plugin"),
          },
        }),
      },
    );
}
