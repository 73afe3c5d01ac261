// /v1/sluice: Sluice's own resources, not Confluent's, for the web console: the instances of the
// cluster and what the calling user may do (see docs/console.md).
import { Elysia, t } from "elysia";
import { documented } from "../../platform/openapi.ts";
import type { ClusterView } from "../cluster.ts";
import { CONFIG_RESOURCE } from "../permissions.ts";
import type { RegistryAccess } from "./access.ts";

const ClusterBody = t.Object({
  leader: t.Union([t.String(), t.Null()]),
  instances: t.Array(t.Object({ url: t.String(), leader: t.Boolean(), eligible: t.Boolean() })),
});

const PermissionsBody = t.Object({
  user: t.Union([t.String(), t.Null()]),
  readOnly: t.Boolean(),
  config: t.Union([t.Literal("Read"), t.Literal("Write"), t.Null()]),
});

export interface SluiceRouteOptions {
  /** The leader election's view of the instances. */
  cluster?: () => ClusterView;
  /** Who the guard admitted the request as (undefined: no authentication, or a skip path). */
  userOf?: (request: Request) => string | undefined;
  access?: RegistryAccess;
}

/** Routes served without an election (the routes alone, in tests): no instance known. */
const ALONE: ClusterView = { leader: null, instances: [] };

export function sluiceRoutes(options: SluiceRouteOptions) {
  return new Elysia()
    .get("/v1/sluice/cluster", () => options.cluster?.() ?? ALONE, {
      response: ClusterBody,
      ...documented({ summary: "The instances of the registry's cluster and its leader (Sluice's own)" }),
    })
    .get(
      "/v1/sluice/permissions",
      ({ request }) => {
        const { access } = options;
        const user = options.userOf?.(request) ?? null;
        // Without per-user permissions every admitted user may do everything.
        if (!access) return { user, readOnly: false, config: "Write" as const };
        const config = access.may(request, "Write", CONFIG_RESOURCE)
          ? ("Write" as const)
          : access.may(request, "Read", CONFIG_RESOURCE)
            ? ("Read" as const)
            : null;
        return { user, readOnly: !access.writesAnything(request), config };
      },
      { response: PermissionsBody, ...documented({ summary: "What the calling user may do (Sluice's own)" }) },
    );
}
