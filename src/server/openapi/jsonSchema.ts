import { z } from 'zod';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

interface ObjectDef {
  type: 'object';
  shape: Record<string, z.ZodType>;
}

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses) of what a client sends, by zod's own converter.
 * The body helpers (case-insensitive names, numbers for strings, '' for absent) wrap every field
 * in a preprocess, which zod cannot see through and reports as optional; so a property is listed
 * as required exactly when its own schema refuses it absent, which is what validation does.
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def as unknown as ObjectDef;
      if (def.type !== 'object') return;
      const required = Object.keys(def.shape).filter((key) => !def.shape[key].safeParse(undefined).success);
      if (required.length > 0) jsonSchema.required = required;
      else delete jsonSchema.required;
    },
  }) as JsonSchema;
  delete converted.$schema;
  return converted;
}

/** The JSON Schema of what the service answers. */
export function outputJsonSchema(schema: z.ZodType): JsonSchema {
  const converted = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  delete converted.$schema;
  return converted;
}
