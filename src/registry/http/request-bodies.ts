// TypeBox schemas of request bodies. Unknown fields are ignored, as Confluent's Jackson mapping does.
import { t } from "elysia";

const Reference = t.Object({ name: t.String(), subject: t.String(), version: t.Integer() });

export const SchemaRequestBody = t.Object(
  {
    schema: t.Optional(t.String()),
    schemaType: t.Optional(t.String()),
    references: t.Optional(t.Array(Reference)),
    id: t.Optional(t.Integer()),
    version: t.Optional(t.Integer()),
    metadata: t.Optional(t.Unknown()),
    ruleSet: t.Optional(t.Unknown()),
  },
  { additionalProperties: true },
);

export const ModeBody = t.Object({ mode: t.Optional(t.Unknown()) }, { additionalProperties: true });
